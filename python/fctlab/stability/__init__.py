"""Stability of RCP's control loop on one bottleneck: the RCP thesis's sec. 5.1 - 5.2 and
Apps. C - E, as numerics.

| module | thesis | what |
|---|---|---|
| `linear` | eqs. 5.7 - 5.12, Apps. C, D | Bode crossovers, the Bode boundary, App. D's Nyquist test |
| `fluid` | eqs. 5.1 - 5.4, 5.14, 5.15, App. E | the fluid, switched and linear models; App. E's region |

`linear` works on the linearized loop G(s) of eq. 5.7: Bode crossovers and phase, the stable
boundary in closed form, the Nyquist test with the exact delay or App. D's Pade approximation,
and the interval of stable alpha for a beta. `fluid` runs the nonlinear model and sec. 5.2's
switched and linear systems as delay differential equations and gives App. E's verdict
(settled, converging, oscillating) on each (alpha, beta).

The reports built on these are the RCP paper's experiments `experiments/rcp/fig5-2/experiment.py`
(Fig. 5.2), `fig5-4/experiment.py` and `fig5-5/experiment.py` (Figs. 5.4, 5.5; the regions they
share in `experiments/rcp/fluid_regions.py`).
"""

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

The reports built on these are this paper's experiments `fig5-2` (Fig. 5.2), `fig5-3` (the
simulated region beside the linear one), `fig5-4` and `fig5-5` (Figs. 5.4, 5.5; the regions they
share in `fluid_regions.py`), which import it as `fctlab_experiments.rcp.stability`
(`fctlab.reproduce.discover`).
"""

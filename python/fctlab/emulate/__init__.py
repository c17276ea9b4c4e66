"""Real-time emulation: fctlab's sans-IO endpoints and queue disciplines over real UDP sockets.

Hosts and the router/link emulator run in network namespaces joined by veth pairs (`netns`,
root only) or on loopback; `cleanup` removes what a killed run left behind.
"""

__all__: list[str] = []

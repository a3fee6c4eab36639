"""agentrl_relay: the relay of Agent RL Studio for nodes that have Python but not Node.

`python3 agentrl_relay.py --job-dir DIR` (the single file the build assembles from this package)
streams a Trinity-RFT job dir to the editor over an authenticated WebSocket, speaking the same
protocol as `agentrl relay`. Python >= 3.8, standard library only.
"""

__version__ = "0.0.0-dev"

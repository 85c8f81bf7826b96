"""Where the tests find the project and the shared campaign data.

The real campaign files live in ``../shared/data`` relative to the project
root (README, "Quick start"); every test that needs them goes through
:data:`SHARED_DATA`, never an absolute path.  The peers of the differential
tests (official evaluators, run as they are) live in ``../shared/peers``
(:data:`PEERS`).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
PEERS = SHARED / "peers"

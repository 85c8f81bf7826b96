"""Progress lines for long-running commands (stderr, so stdout stays data)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Report ``done/total`` at most every ``every`` seconds on stderr; nothing
    before ``quiet_for`` seconds have passed (a step that ends sooner says nothing)."""

    def __init__(self, label: str, total: int, every: float = 2.0, enabled: bool = True,
                 quiet_for: float = 0.0):
        self.label, self.quiet_for = label, quiet_for
        self.total = max(int(total), 1)
        self.every = every
        self.enabled = enabled
        self.start = time.monotonic()
        self._last = 0.0

    def report(self, done: int, total: int) -> None:
        """``progress(done, total)`` callback for the computing layers, whose
        total is known only once they start."""
        self.total = max(int(total), 1)
        self.update(done)

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.quiet_for:
            return
        if done >= self.total or now - self._last >= self.every:
            self._last = now
            pct = 100.0 * done / self.total
            print(f"{self.label}: {done}/{self.total} ({pct:.0f}%) {now - self.start:.1f}s",
                  file=sys.stderr, flush=True)

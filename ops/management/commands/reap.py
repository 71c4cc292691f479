"""``manage.py reap [--loop SECONDS]``: fail or retry jobs whose worker died, drop expired leases and orphaned uploads."""
from __future__ import annotations

import signal
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from ops.reaper import reap_once


class Command(BaseCommand):
    help = "Reap dead jobs, expired leases and orphaned uploads once, or every N seconds with --loop."

    def add_arguments(self, parser):
        parser.add_argument("--loop", type=float, default=0, metavar="SECONDS",
                            help="Repeat every SECONDS until stopped (SIGTERM or Ctrl-C); run once when 0.")

    def handle(self, *args, loop: float, **options):
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        while True:
            close_old_connections()
            counts = reap_once()
            if not loop or options["verbosity"] > 1:
                self.stdout.write(" ".join(f"{name}={value}" for name, value in counts.items()))
            if not loop:
                return
            deadline = time.monotonic() + loop
            while not stopping and time.monotonic() < deadline:
                time.sleep(min(0.5, loop))
            if stopping:
                return

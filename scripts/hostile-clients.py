#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A bounded hostile-client run against yolo-edged's HTTP server (issue 11).

Opens many connections that never read, sends headers a byte at a time, oversized bodies and
headers, and garbage, all at once, for a fixed time; then closes everything and checks that the
page still loads. Prints what it did as JSON. Usable against any device:

    scripts/hostile-clients.py http://pi.local:8080 [--seconds 20] [--password PASSWORD]

With the password (`yolo-edge config --show-credential` on the device) the page is loaded logged
in at the end; without it, the login form answering counts as the page loading.

Only the standard library: it runs wherever python3 does, beside its lib/ folder (the clients
are in lib/live_clients.py, shared with scripts/bench-live.py and scripts/bench-hostile.py).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import live_clients  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url", help="the daemon's page, e.g. http://127.0.0.1:8080/")
    ap.add_argument("--seconds", type=float, default=20, help="how long the attack lasts")
    ap.add_argument("--password", default=os.environ.get("YOLO_EDGE_PASSWORD"),
                    help="the live view's password, to load the page logged in at the end")
    args = ap.parse_args()
    result = live_clients.hostile_run(args.url, args.seconds, args.password)
    print(json.dumps(result, indent=2))
    return 0 if result["page_loads_after"] else 1


if __name__ == "__main__":
    sys.exit(main())

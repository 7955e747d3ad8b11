#!/usr/bin/env python3
"""Records real evaluations for bench_fleet_load's simulated fleet (tests/bench/fleet_recorded.json).

    python3 tests/bench/record_fleet_runs.py http://127.0.0.1:PORT ID [ID...] > tests/bench/fleet_recorded.json

For each finished candidate of a running `kwb serve`: its verdict, and the events of its device
stages (from the first `validating` state to the verdict, exclusive) with their time from the
start of those stages (`at_ms`) and the device stages' whole time (`device_ms`). The simulated
executor replays the events at their fraction of its configured device time, then stores the
verdict. Only the standard library is used.
"""
import datetime
import json
import sys
import urllib.request


def get(base, path):
    with urllib.request.urlopen(base + path) as r:
        return json.load(r)


def ms(at):
    return datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp() * 1000


def record(base, cid):
    cand = get(base, "/v1/candidates/" + cid)
    if cand["state"] != "done":
        sys.exit(f"{cid} is {cand['state']}, not done")
    events = get(base, f"/v1/candidates/{cid}/events?wait=0")["events"]
    start = next(i for i, e in enumerate(events) if e["kind"] == "state" and e["data"].get("state") == "validating")
    end = next(i for i, e in enumerate(events) if e["kind"] == "verdict")
    t0 = ms(events[start]["at"])
    device = [{"at_ms": round(ms(e["at"]) - t0, 1), "kind": e["kind"], "data": e["data"]} for e in events[start:end]]
    return {"candidate": cid, "device_ms": round(ms(events[end]["at"]) - t0, 1), "events": device,
            "verdict": cand["verdict"]}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = [record(sys.argv[1], cid) for cid in sys.argv[2:]]
    json.dump({"recorded_with": "tests/bench/record_fleet_runs.py", "runs": runs}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

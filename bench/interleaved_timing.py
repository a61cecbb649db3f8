#!/usr/bin/env python3
"""Wall time of whole commands, run interleaved (A B C A B C ...) so that a noisy host
affects all of them alike. Prints the median and p90 of the runs that exited 0.

    bench/interleaved_timing.py --reps 40 '/usr/bin/srun --jobid=1 -n1 true' \\
        'SLUICE_CONF=/tmp/sl/sluice.conf build/bin/srun --jobid=1 -N1 -n1 true'

A leading VAR=value word sets that variable for the command (no shell is involved).
"""
import argparse
import os
import statistics
import subprocess
import time


def split(command):
    words, env = command.split(), dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    return words, env


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=40)
    p.add_argument("commands", nargs="+")
    a = p.parse_args()
    runs = {c: [] for c in a.commands}
    failed = {c: 0 for c in a.commands}
    for _ in range(a.reps):
        for c in a.commands:
            argv, env = split(c)
            t = time.perf_counter()
            rc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            if rc == 0:
                runs[c].append((time.perf_counter() - t) * 1000)
            else:
                failed[c] += 1
    for c in a.commands:
        v = sorted(runs[c])
        if not v:
            print(f"{c}: every run failed")
            continue
        print(f"{statistics.median(v):7.1f} ms median  {v[int(len(v) * 0.9)]:7.1f} ms p90  "
              f"({len(v)} runs, {failed[c]} failed)  {c}")


if __name__ == "__main__":
    main()

"""A/B of `luminair prove`: base (a copy of main on PYTHONPATH at $AB_BASE, default /tmp/perf29/base) and new (this worktree), alternately, under /usr/bin/time -v.
    python bench/ab_cli.py MODEL RUNS base,new       (results: $AB_OUT, default /tmp/perf29)"""
import hashlib, json, os, re, subprocess, sys, statistics, tempfile, time
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = ROOT + "/.venv/bin/python"
BASE = os.environ.get("AB_BASE", "/tmp/perf29/base"); OUT = os.environ.get("AB_OUT", "/tmp/perf29")
model = sys.argv[1]; runs = int(sys.argv[2]); which = sys.argv[3].split(",")
ex = f"{ROOT}/examples/{model}"
res = {w: [] for w in which}
def one(w, out):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = OUT + "/pycache-" + w
    if w == "base": env["PYTHONPATH"] = BASE
    cmd = ["/usr/bin/time", "-v", PY, "-m", "luminair.prover.cli", "prove", f"{ex}/network.onnx", "--input", f"{ex}/input.json",
           "--out", out, "--preset", "default", "--quiet", "--json"]
    load = os.getloadavg()[0]
    t = time.perf_counter(); p = subprocess.run(cmd, capture_output=True, env=env, cwd="/tmp"); wall = time.perf_counter() - t
    err = p.stderr.decode()
    if p.returncode: raise SystemExit(err[-3000:])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
    cpu = float(re.search(r"User time \(seconds\): ([\d.]+)", err).group(1)) + float(re.search(r"System time \(seconds\): ([\d.]+)", err).group(1))
    dig = hashlib.sha256(open(out + "/proof.bin", "rb").read()).hexdigest()
    stages = json.loads(p.stdout)["time_s"]
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "sys_s": float(re.search(r"System time \(seconds\): ([\d.]+)", err).group(1)), "peak_rss_mb": round(rss), "load_1min": round(load, 2), "digest": dig, "stages": stages}
with tempfile.TemporaryDirectory() as d:
    for w in which: one(w, f"{d}/{w}")  # warm-up
    for i in range(runs):
        for w in which:
            r = one(w, f"{d}/{w}"); res[w].append(r); print(w, {k: v for k, v in r.items() if k != "stages"}, flush=True)
med = {w: {k: statistics.median(r[k] for r in rs) for k in ("wall_s", "cpu_s", "peak_rss_mb")} for w, rs in res.items()}
print(json.dumps(med))
json.dump({"runs": res, "median": med}, open(f"{OUT}/ab_{model}_{'_'.join(which)}_{int(time.time())}.json", "w"), indent=1)

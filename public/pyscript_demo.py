# Runs in the page (PyScript, main thread): install luminair.verifier with micropip from the
# self-hosted wheel, check it against the published SHA-256, verify the sample files.
import hashlib
import sys

import js
import micropip
from pyodide.http import pyfetch
from pyscript import document


def show(element_id, text):
    document.getElementById(element_id).textContent = text


def url(path):
    return js.URL.new(path, js.location.href).href


async def fetch_bytes(path):
    response = await pyfetch(url(path))
    if not response.ok:
        raise OSError(f"{path}: HTTP {response.status}")
    return await response.bytes()


try:
    show("py-micropip", f"micropip {micropip.__version__} (from the self-hosted lock file), Python {sys.version.split()[0]}")
    manifest = await (await pyfetch(url("./luminair/manifest.json"))).json()
    wheel_url = url("./luminair/" + manifest["file"])
    wheel = await fetch_bytes(wheel_url)
    digest = hashlib.sha256(wheel).hexdigest()
    if digest != manifest["sha256"]:
        raise RuntimeError(f"wheel SHA-256 {digest} does not match the manifest ({manifest['sha256']})")
    await micropip.install(wheel_url)
    show("py-wheel", f"{manifest['file']} installed with micropip; SHA-256 {digest[:16]}… matches the manifest")

    from luminair.verifier import verify

    proof = await fetch_bytes("./proof.bin")
    settings = await fetch_bytes("./settings.bin")
    steps = []
    result = verify(proof, settings, progress=lambda step, of, label: steps.append(f"{step}/{of} {label}"))
    if result.success:
        show("py-result", "Verified")
        outputs = {name: t["values"] for name, t in (result.outputs or {}).items()}
        show("py-outputs", repr(outputs))
        show("py-digest", result.model_digest)
        show("py-security", f"{result.security_bits} bits ({result.security_label})")
        show("py-time", f"{result.verification_time_ms:.1f} ms in Pyodide")
    else:
        show("py-result", f"Rejected: {result.error_message}")
    show("py-steps", " · ".join(steps))

    bad = bytearray(proof)
    bad[len(bad) // 2] ^= 1
    tampered = verify(bytes(bad), settings)
    show("py-tampered", "unexpectedly verified!" if tampered.success else f"rejected: {tampered.error_message}")
except Exception as e:  # shown on the page, where a reader can see it
    show("py-result", f"Error: {type(e).__name__}: {e}")
    raise

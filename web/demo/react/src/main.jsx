import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { configure } from "luminair-web";
import { VerifyBadge, VerifyButton } from "luminair-web/react";
import "./demo.css";

// This bundle lives in /react/ and the hosted verifier folder in /luminair/. A bundled copy would
// find it there by itself (it looks next to the page first, then at /luminair/), but the first
// look is a 404 in the console: saying where it is costs nothing.
configure({ baseUrl: new URL("../luminair/", window.location.href).href });

function App() {
  const [log, setLog] = useState([]);
  const [verified, setVerified] = useState(null);
  const [dark, setDark] = useState(false);
  const note = (line) => setLog((l) => [...l, line]);
  return (
    <main className={dark ? "dark" : ""}>
      <header>
        <h1>luminair-web/react</h1>
        <nav aria-label="Demo pages">
          <a href="../">Drop-in element</a>
          <a href="./" aria-current="page">React demo</a>
          <a href="../pyscript.html">PyScript page</a>
        </nav>
        <button type="button" aria-pressed={dark} onClick={() => { document.documentElement.classList.toggle("dark"); setDark(!dark); }}>
          Dark mode
        </button>
      </header>
      <p>
        <code>VerifyButton</code> and <code>VerifyBadge</code> from <code>luminair-web/react</code>, rendered by React 19 and
        bundled by Vite. The proof is checked in your browser by the Python verifier in a Web Worker.
      </p>
      <section className="row">
        <VerifyButton
          id="react-button"
          proofPath="../proof.bin"
          settingsPath="../settings.bin"
          title="Can't be evil."
          buttonText="VERIFY"
          author="luminair"
          authorUrl="../"
          modelDescription="Demo model proven with luminair"
          className="demo-button"
          onStart={() => note("start")}
          onProgress={(d) => note(`step ${d.step}/${d.of}`)}
          onVerified={(d) => { note("verified"); setVerified(d); }}
          onError={(d) => note(`error: ${d.kind}: ${d.message}`)}
        />
        <VerifyBadge
          id="react-badge"
          proofPath="../proof.bin"
          settingsPath="../settings.bin"
          labelText="VERIFIED COMPUTE"
          variant="default"
          author="luminair"
          modelDescription="Demo model proven with luminair"
        />
      </section>
      <section aria-live="polite">
        <h2>From the callbacks</h2>
        <p id="react-verified">
          {verified
            ? `Verified: outputs ${JSON.stringify(Object.fromEntries(Object.entries(verified.outputs ?? {}).map(([k, v]) => [k, v.values])))}, ${verified.securityBits} bits, model ${verified.modelDigest.slice(0, 16)}…`
            : "Not verified yet."}
        </p>
        <ol id="react-log">{log.map((l, i) => <li key={i}>{l}</li>)}</ol>
      </section>
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

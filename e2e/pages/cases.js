// Records every luminair event (they bubble and are composed) for the tests to read.
window.__events = [];
for (const type of ["luminair-verify-start", "luminair-verify-progress", "luminair-verify-success", "luminair-verify-error"]) {
  document.addEventListener(type, (e) => {
    window.__events.push({ type, id: e.target.id, status: e.target.status, detail: JSON.parse(JSON.stringify(e.detail ?? null)) });
  });
}

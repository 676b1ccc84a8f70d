import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The demo is served from /react/ next to the hosted /luminair/ folder (Pyodide, worker, wheel):
// those are fetched at run time, never bundled.
export default defineConfig({
  base: "./",
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: { dedupe: ["react", "react-dom"] },
  build: {
    outDir: fileURLToPath(new URL("../../../public/react", import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      onwarn(warning, warn) {
        // react.js starts with "use client" for Next.js; a client-only bundle can drop it.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
});

"use client";
// React wrapper for <luminair-verify> (React 18 and 19): VerifyButton and VerifyBadge with
// LuminAIR's prop names. The element is defined in an effect, so server rendering never touches
// customElements; byte props are set as properties and events become callback props.
import { createElement, useEffect, useRef } from "react";
import { configure } from "./client.js";

const EVENTS = {
  onStart: "luminair-verify-start",
  onProgress: "luminair-verify-progress",
  onVerified: "luminair-verify-success",
  onError: "luminair-verify-error",
};

let defining = null;
function defineElement() {
  defining ??= import("./define.js");
  return defining;
}

function useLuminairElement(props) {
  const ref = useRef(null);
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const listeners = Object.entries(EVENTS).map(([prop, type]) => {
      const fn = (event) => latest.current[prop]?.(event.detail, event);
      el.addEventListener(type, fn);
      return [type, fn];
    });
    return () => {
      for (const [type, fn] of listeners) el.removeEventListener(type, fn);
    };
  }, []);

  const { proofBytes, settingsBytes, baseUrl } = props;
  useEffect(() => {
    if (baseUrl) configure({ baseUrl });
    let cancelled = false;
    defineElement().then(() => {
      const el = ref.current;
      if (cancelled || !el) return;
      if (proofBytes !== undefined && el.proofBytes !== proofBytes) el.proofBytes = proofBytes;
      if (settingsBytes !== undefined && el.settingsBytes !== settingsBytes) el.settingsBytes = settingsBytes;
    });
    return () => {
      cancelled = true;
    };
  }, [proofBytes, settingsBytes, baseUrl]);

  return ref;
}

function attributes(props, extra) {
  const out = {
    proof: props.proofPath,
    settings: props.settingsPath,
    title: props.title ?? "Can't be evil.",
    author: props.author,
    "author-url": props.authorUrl,
    "model-description": props.modelDescription,
    class: props.className,
    theme: props.theme,
    preload: props.preload === true ? "eager" : typeof props.preload === "string" ? props.preload : undefined,
    cache: props.cache ? "" : undefined,
    "timeout-ms": props.timeoutMs == null ? undefined : String(props.timeoutMs),
    "min-security-bits": props.minSecurityBits == null ? undefined : String(props.minSecurityBits),
    "max-work": props.maxWork == null ? undefined : String(props.maxWork),
    id: props.id,
    style: props.style,
    ...extra,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined || out[k] === null) delete out[k];
  return out;
}

/** A "VERIFY" button that opens the verification modal and verifies on click. */
export function VerifyButton(props) {
  const ref = useLuminairElement(props);
  return createElement(
    "luminair-verify",
    { ref, ...attributes(props, { "button-text": props.buttonText ?? "VERIFY", variant: props.variant }) },
    props.children,
  );
}

/** A badge that verifies on mount and shows the verdict; a click opens the modal. */
export function VerifyBadge(props) {
  const ref = useLuminairElement(props);
  return createElement(
    "luminair-verify",
    { ref, ...attributes(props, { mode: "badge", "label-text": props.labelText ?? "VERIFIED COMPUTE", variant: props.variant ?? "default" }) },
    props.children,
  );
}

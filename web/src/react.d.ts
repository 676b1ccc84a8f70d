import type { ReactNode, CSSProperties, JSX as ReactJSX } from "react";
import type { LuminairVerifyElement, VerifyErrorDetail, VerifyProgressDetail, VerifyStartDetail, VerifySuccessDetail } from "./element.js";

interface CommonProps {
  /** URL of proof.bin. */
  proofPath?: string;
  /** URL of settings.bin. */
  settingsPath?: string;
  /** proof.bin as bytes (instead of proofPath). */
  proofBytes?: Uint8Array;
  /** settings.bin as bytes (instead of settingsPath). */
  settingsBytes?: Uint8Array;
  /** Modal title; default "Can't be evil." */
  title?: string;
  author?: string;
  authorUrl?: string;
  modelDescription?: string;
  className?: string;
  id?: string;
  style?: CSSProperties;
  theme?: "auto" | "light" | "dark";
  /** When to start the verifier before a click: true/"eager" (on mount), "idle", "hover" (default), "none". */
  preload?: boolean | "eager" | "idle" | "hover" | "none";
  /** Keep the runtime files in Cache Storage across visits (opt-in, for the page). */
  cache?: boolean;
  timeoutMs?: number;
  /** Lower the security floor (default 96) to check development proofs; they stay labelled. */
  minSecurityBits?: number;
  /** The verifier's work budget (units of about 1 us); unset: the default (about 1 s at most). */
  maxWork?: number;
  /** The hosted luminair folder (worker, wheel, Pyodide) when it is not next to the bundle. */
  baseUrl?: string;
  variant?: "default" | "secondary" | "destructive" | "outline";
  children?: ReactNode;
  onStart?: (detail: VerifyStartDetail, event: CustomEvent<VerifyStartDetail>) => void;
  onProgress?: (detail: VerifyProgressDetail, event: CustomEvent<VerifyProgressDetail>) => void;
  onVerified?: (detail: VerifySuccessDetail, event: CustomEvent<VerifySuccessDetail>) => void;
  onError?: (detail: VerifyErrorDetail, event: CustomEvent<VerifyErrorDetail>) => void;
}

export interface VerifyButtonProps extends CommonProps {
  /** Default "VERIFY". */
  buttonText?: string;
}

export interface VerifyBadgeProps extends CommonProps {
  /** Shown once verified; default "VERIFIED COMPUTE". */
  labelText?: string;
}

export declare function VerifyButton(props: VerifyButtonProps): ReactJSX.Element;
export declare function VerifyBadge(props: VerifyBadgeProps): ReactJSX.Element;

type ElementAttributes = {
  proof?: string;
  settings?: string;
  title?: string;
  "button-text"?: string;
  "label-text"?: string;
  author?: string;
  "author-url"?: string;
  "model-description"?: string;
  theme?: "auto" | "light" | "dark";
  preload?: boolean | "" | "eager" | "idle" | "hover" | "none";
  cache?: boolean | "";
  mode?: "button" | "badge";
  variant?: string;
  "timeout-ms"?: string | number;
  "min-security-bits"?: string | number;
  "max-work"?: string | number;
  class?: string;
  className?: string;
  id?: string;
  ref?: import("react").Ref<LuminairVerifyElement>;
  children?: ReactNode;
};

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "luminair-verify": ElementAttributes;
    }
  }
}

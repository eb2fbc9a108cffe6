// How the extension finds the `stoker` executable: a pure function of the settings and the
// environment, so that it can be tested without VS Code.
import * as path from "path";

export interface ResolveInput {
  /** `stoker.path`: empty means "use importStrategy". `${workspaceFolder}` and a leading `~` are expanded. */
  path: unknown;
  /**
   * `stoker.importStrategy` (ruff's extension's setting and order): "fromEnvironment" (default)
   * takes `stoker` from PATH and falls back to the bundled binary; "useBundled" takes the bundled one.
   */
  importStrategy?: unknown;
  /** The binary shipped inside a platform .vsix (bundled/bin/stoker), when it is there. */
  bundled?: string;
  /** `stoker.args`: extra arguments after `server`. */
  args: unknown;
  workspaceFolder?: string;
  home?: string;
  /** The PATH environment variable. */
  envPath?: string;
  platform: NodeJS.Platform;
  /** True when the file exists and may be executed. */
  isExecutable: (file: string) => boolean;
}

export type Resolved = { ok: true; command: string; args: string[] } | { ok: false; message: string };

const INSTALL_HINT = "Install the platform extension (it bundles the binary), `pip install stoker`, or set `stoker.path` to the binary.";

export function resolveServerCommand(input: ResolveInput): Resolved {
  const p = input.platform === "win32" ? path.win32 : path.posix;
  const exe = input.platform === "win32" ? ".exe" : "";

  if (input.args !== undefined && input.args !== null &&
      (!Array.isArray(input.args) || input.args.some((a) => typeof a !== "string"))) {
    return { ok: false, message: "`stoker.args` must be a list of strings." };
  }
  const extra = (input.args as string[] | undefined) ?? [];
  const args = extra[0] === "server" ? extra.slice() : ["server", ...extra];

  if (input.path !== undefined && input.path !== null && typeof input.path !== "string") {
    return { ok: false, message: "`stoker.path` must be a string." };
  }
  let configured = ((input.path as string | undefined) ?? "").trim();

  if (configured === "") {
    const strategy = input.importStrategy ?? "fromEnvironment";
    if (strategy !== "fromEnvironment" && strategy !== "useBundled") {
      return { ok: false, message: "`stoker.importStrategy` must be \"fromEnvironment\" or \"useBundled\"." };
    }
    const bundled = input.bundled && input.isExecutable(input.bundled) ? input.bundled : undefined;
    if (strategy === "useBundled") {
      if (bundled) return { ok: true, command: bundled, args };
      return { ok: false, message: `\`stoker.importStrategy\` is "useBundled", but this build of the extension bundles no binary. ${INSTALL_HINT}` };
    }
    const found = searchPath("stoker" + exe, input, p) ?? bundled;
    if (found) return { ok: true, command: found, args };
    return { ok: false, message: `The stoker executable was not found on PATH, and this build of the extension bundles none. ${INSTALL_HINT}` };
  }

  if (configured.includes("${workspaceFolder}")) {
    if (!input.workspaceFolder) {
      return { ok: false, message: `\`stoker.path\` (${configured}) uses \${workspaceFolder}, but no folder is open.` };
    }
    configured = configured.split("${workspaceFolder}").join(input.workspaceFolder);
  }
  if (configured === "~" || configured.startsWith("~/") || configured.startsWith("~\\")) {
    if (!input.home) return { ok: false, message: `\`stoker.path\` (${configured}) starts with ~, but HOME is not set.` };
    configured = p.join(input.home, configured.slice(1));
  }

  // A bare name ("stoker-dev") is looked up on PATH, as a shell would.
  if (!configured.includes("/") && !(input.platform === "win32" && configured.includes("\\"))) {
    const found = searchPath(configured, input, p) ?? (exe ? searchPath(configured + exe, input, p) : undefined);
    if (found) return { ok: true, command: found, args };
    return { ok: false, message: `\`stoker.path\` is "${configured}", which is not on PATH. ${INSTALL_HINT}` };
  }

  let file = configured;
  if (!p.isAbsolute(file)) {
    if (!input.workspaceFolder) {
      return { ok: false, message: `\`stoker.path\` (${configured}) is relative, but no folder is open to resolve it against.` };
    }
    file = p.resolve(input.workspaceFolder, file);
  }
  if (!input.isExecutable(file)) {
    return { ok: false, message: `\`stoker.path\` points to ${file}, which is not an executable file. ${INSTALL_HINT}` };
  }
  return { ok: true, command: file, args };
}

function searchPath(name: string, input: ResolveInput, p: typeof path.posix): string | undefined {
  const sep = input.platform === "win32" ? ";" : ":";
  for (const dir of (input.envPath ?? "").split(sep)) {
    if (!dir) continue;
    const candidate = p.join(dir, name);
    if (input.isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The `stoker` section sent to the server at start and on every configuration change. */
export function serverSettings(config: { gpu?: unknown; enable?: unknown }): { stoker: { gpu?: string; enable: boolean } } {
  const gpu = typeof config.gpu === "string" && config.gpu.trim() !== "" ? config.gpu.trim() : undefined;
  return { stoker: { gpu, enable: config.enable !== false } };
}

import * as assert from "node:assert/strict";
import { test } from "node:test";

import { ResolveInput, resolveServerCommand, serverSettings } from "../serverCommand";

function input(over: Partial<ResolveInput>, executables: string[] = []): ResolveInput {
  return {
    path: "",
    args: [],
    workspaceFolder: "/work/proj",
    home: "/home/u",
    envPath: "/usr/local/bin:/usr/bin",
    platform: "linux",
    isExecutable: (f) => executables.includes(f),
    ...over,
  };
}

test("empty stoker.path finds stoker on PATH, in PATH order", () => {
  const r = resolveServerCommand(input({}, ["/usr/bin/stoker", "/usr/local/bin/stoker"]));
  assert.deepEqual(r, { ok: true, command: "/usr/local/bin/stoker", args: ["server"] });
});

test("a missing binary gives a clear message naming the setting", () => {
  const r = resolveServerCommand(input({}, []));
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /not found on PATH.*stoker\.path/);
});

test("${workspaceFolder}, ~ and relative paths are resolved", () => {
  assert.deepEqual(
    resolveServerCommand(input({ path: "${workspaceFolder}/build/stoker" }, ["/work/proj/build/stoker"])),
    { ok: true, command: "/work/proj/build/stoker", args: ["server"] });
  assert.deepEqual(resolveServerCommand(input({ path: "~/bin/stoker" }, ["/home/u/bin/stoker"])),
    { ok: true, command: "/home/u/bin/stoker", args: ["server"] });
  assert.deepEqual(resolveServerCommand(input({ path: "build/stoker" }, ["/work/proj/build/stoker"])),
    { ok: true, command: "/work/proj/build/stoker", args: ["server"] });
  const noFolder = resolveServerCommand(input({ path: "build/stoker", workspaceFolder: undefined }));
  assert.equal(noFolder.ok, false);
});

test("a configured path that is not executable is reported with the resolved file", () => {
  const r = resolveServerCommand(input({ path: "/opt/stoker/bin/stoker" }, []));
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /\/opt\/stoker\/bin\/stoker, which is not an executable file/);
});

test("a bare name in stoker.path is looked up on PATH", () => {
  assert.deepEqual(resolveServerCommand(input({ path: "stoker-dev" }, ["/usr/bin/stoker-dev"])),
    { ok: true, command: "/usr/bin/stoker-dev", args: ["server"] });
});

test("stoker.args follow `server`, which is not doubled", () => {
  const bin = ["/usr/bin/stoker"];
  assert.deepEqual(resolveServerCommand(input({ args: ["--log", "x"] }, bin)),
    { ok: true, command: "/usr/bin/stoker", args: ["server", "--log", "x"] });
  assert.deepEqual(resolveServerCommand(input({ args: ["server", "--stdio"] }, bin)),
    { ok: true, command: "/usr/bin/stoker", args: ["server", "--stdio"] });
  assert.equal(resolveServerCommand(input({ args: ["ok", 3] }, bin)).ok, false);
  assert.equal(resolveServerCommand(input({ args: "server" }, bin)).ok, false);
  assert.equal(resolveServerCommand(input({ path: 42 }, bin)).ok, false);
});

test("Windows: PATH uses ; and the executable ends in .exe", () => {
  const r = resolveServerCommand(input({ platform: "win32", envPath: "C:\\tools;C:\\stoker\\bin" },
    ["C:\\stoker\\bin\\stoker.exe"]));
  assert.deepEqual(r, { ok: true, command: "C:\\stoker\\bin\\stoker.exe", args: ["server"] });
});

test("settings sent to the server: gpu only when set, enable defaults to true", () => {
  assert.deepEqual(serverSettings({ gpu: " h100-sxm ", enable: undefined }), { stoker: { gpu: "h100-sxm", enable: true } });
  assert.deepEqual(serverSettings({ gpu: "", enable: false }), { stoker: { gpu: undefined, enable: false } });
});

test("bundled binary: PATH's stoker first (fromEnvironment, the default), else the bundled one", () => {
  const bundled = "/ext/bundled/bin/stoker";
  assert.deepEqual(resolveServerCommand(input({ bundled }, ["/usr/bin/stoker", bundled])),
    { ok: true, command: "/usr/bin/stoker", args: ["server"] });
  assert.deepEqual(resolveServerCommand(input({ bundled }, [bundled])),
    { ok: true, command: bundled, args: ["server"] });
  // A bundled path that is not there (the platform-neutral package) is not used.
  const none = resolveServerCommand(input({ bundled }, []));
  assert.equal(none.ok, false);
  assert.match((none as { message: string }).message, /bundles none/);
});

test("useBundled takes the bundled binary over PATH; stoker.path wins over both", () => {
  const bundled = "/ext/bundled/bin/stoker";
  const exes = ["/usr/bin/stoker", bundled, "/opt/stoker"];
  assert.deepEqual(resolveServerCommand(input({ bundled, importStrategy: "useBundled" }, exes)),
    { ok: true, command: bundled, args: ["server"] });
  assert.deepEqual(resolveServerCommand(input({ bundled, importStrategy: "useBundled", path: "/opt/stoker" }, exes)),
    { ok: true, command: "/opt/stoker", args: ["server"] });
  const missing = resolveServerCommand(input({ bundled, importStrategy: "useBundled" }, ["/usr/bin/stoker"]));
  assert.equal(missing.ok, false);
  assert.match((missing as { message: string }).message, /useBundled/);
  const bad = resolveServerCommand(input({ importStrategy: "fromPython" }, exes));
  assert.equal(bad.ok, false);
  assert.match((bad as { message: string }).message, /importStrategy/);
});

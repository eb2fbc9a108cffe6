// The VS Code side of stoker: starts `stoker server` for Python, CUDA and C++ files and shows
// its state in the status bar. All analysis happens in the server.
import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from "vscode-languageclient/node";

import { resolveServerCommand, serverSettings } from "./serverCommand";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function setStatus(icon: string, tooltip: string): void {
  status.text = `${icon} stoker`;
  status.tooltip = tooltip;
  status.show();
}

let bundledBinary: string | undefined;

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration("stoker");
  if (!config.get<boolean>("enable", true)) {
    setStatus("$(circle-slash)", "stoker is disabled (stoker.enable)");
    return;
  }
  const resolved = resolveServerCommand({
    path: config.get("path"),
    importStrategy: config.get("importStrategy"),
    bundled: bundledBinary,
    args: config.get("args"),
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    home: os.homedir(),
    envPath: process.env.PATH,
    platform: process.platform,
    isExecutable,
  });
  if (!resolved.ok) {
    output.appendLine(resolved.message);
    setStatus("$(warning)", resolved.message);
    const choice = await vscode.window.showErrorMessage(`stoker: ${resolved.message}`, "Open Settings", "Show Output");
    if (choice === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "stoker.path");
    if (choice === "Show Output") output.show();
    return;
  }
  output.appendLine(`Starting ${resolved.command} ${resolved.args.join(" ")}`);
  const serverOptions: ServerOptions = {
    run: { command: resolved.command, args: resolved.args },
    debug: { command: resolved.command, args: resolved.args },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { scheme: "file", language: "cuda-cpp" },
      { scheme: "file", language: "cpp" },
    ],
    outputChannel: output,
    initializationOptions: serverSettings({ gpu: config.get("gpu"), enable: config.get("enable") }),
    synchronize: { configurationSection: "stoker" },
  };
  client = new LanguageClient("stoker", "stoker", serverOptions, clientOptions);
  client.onDidChangeState((e) => {
    if (e.newState === State.Running) setStatus("$(check)", `stoker server running (${resolved.command})`);
    else if (e.newState === State.Stopped) setStatus("$(warning)", "stoker server stopped; see the output");
    else setStatus("$(sync~spin)", "stoker server starting");
  });
  try {
    await client.start();
  } catch (err) {
    const message = `could not start ${resolved.command}: ${err instanceof Error ? err.message : String(err)}`;
    output.appendLine(message);
    setStatus("$(warning)", message);
    void vscode.window.showErrorMessage(`stoker: ${message}`);
  }
}

async function stop(): Promise<void> {
  if (!client) return;
  const c = client;
  client = undefined;
  try {
    await c.stop();
  } catch (err) {
    output.appendLine(`stopping the server: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // A platform package (vsce package --target linux-x64) carries the binary here.
  bundledBinary = context.asAbsolutePath(process.platform === "win32" ? "bundled/bin/stoker.exe" : "bundled/bin/stoker");
  output = vscode.window.createOutputChannel("stoker");
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "stoker.showOutput";
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("stoker.restart", restart),
    vscode.commands.registerCommand("stoker.showOutput", () => output.show()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // stoker.gpu reaches a running server through didChangeConfiguration; these need a new process.
      if (e.affectsConfiguration("stoker.path") || e.affectsConfiguration("stoker.args") ||
          e.affectsConfiguration("stoker.importStrategy") ||
          e.affectsConfiguration("stoker.enable")) {
        void restart();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

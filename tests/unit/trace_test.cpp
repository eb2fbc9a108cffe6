// `stoker profile` and `stoker check --profile` on real traces: GPU traces recorded on real runs
// (/work/shared/traces, see its README), and traces with Python stacks recorded here on the CPU
// with Debian's PyTorch (tests/trace/record_cpu_trace.py). Expectations come from
// tests/trace/expect_profile.py and the recorder, which read the traces with Python's gzip and
// json modules (or torch's own events), never from stoker.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace fs = std::filesystem;
using nlohmann::json;
using stoker::testing::CommandResult;
using stoker::testing::read_text;
using stoker::testing::run_in;
using stoker::testing::shell_quote;
using stoker::testing::stoker_command;
using stoker::testing::TempDir;
using stoker::testing::write_text;

namespace {

const fs::path kTraces = "/work/shared/traces";
const fs::path kTests = fs::path(STOKER_SOURCE_DIR) / "tests" / "trace";

bool have_traces() {
  if (fs::exists(kTraces / "resnet_volta_rank0.json.gz")) return true;
  WARN("no real traces in " << kTraces << ": skipped");
  return false;
}

json expected(const fs::path& trace) {
  auto r = run_in(fs::current_path(), "python3 " + shell_quote((kTests / "expect_profile.py").string()) + " " +
                                          shell_quote(trace.string()));
  REQUIRE(r.rc == 0);
  return json::parse(r.out);
}

json stoker_profile(const fs::path& trace) {
  auto r = run_in(fs::current_path(), stoker_command("profile --output-format json " + shell_quote(trace.string())));
  INFO(r.err);
  REQUIRE(r.rc == 0);
  return json::parse(r.out);
}

// Sums of stoker's idle attribution per kind, over all steps.
std::map<std::string, std::pair<double, double>> kinds(const json& p) {
  std::map<std::string, std::pair<double, double>> out;  // kind -> (idle ms, host ms)
  const double n = static_cast<double>(p["steps"].size());
  for (const auto& c : p["idle_attribution"]) {
    auto& k = out[c["kind"].get<std::string>()];
    k.first += c["idle_ms_per_step"].get<double>() * n;
    k.second += c["host_ms_per_step"].get<double>() * n;
  }
  return out;
}

void require_close(double got, double want, const std::string& what) {
  INFO(what << ": stoker " << got << ", expected " << want);
  REQUIRE(std::abs(got - want) <= 1e-6 + 1e-9 * std::abs(want));
}

void compare(const fs::path& trace) {
  json want = expected(trace);
  json got = stoker_profile(trace);
  INFO(trace.filename().string());
  REQUIRE(got["events"] == want["events"]);
  REQUIRE(got["steps"].size() == want["steps"].size());
  for (size_t i = 0; i < want["steps"].size(); ++i) {
    REQUIRE(got["steps"][i]["name"] == want["steps"][i]["name"]);
    require_close(got["steps"][i]["duration_ms"], want["steps"][i]["duration_ms"], "duration");
    require_close(got["steps"][i]["busy_ms"], want["steps"][i]["busy_ms"], "busy");
    require_close(got["steps"][i]["idle_ms"],
                  want["steps"][i]["duration_ms"].get<double>() - want["steps"][i]["busy_ms"].get<double>(), "idle");
  }
  auto mine = kinds(got);
  for (const auto& [kind, v] : want["kinds"].items()) {
    require_close(mine[kind].first, v["idle_ms"], kind + " idle");
    require_close(mine[kind].second, v["host_ms"], kind + " host");
  }
}

// Peak resident memory (KB) of `stoker profile TRACE` (or `stoker ARGS... TRACE`), from
// wait4's rusage of that one child.
long peak_kb(const fs::path& trace, std::vector<std::string> args = {"profile"}) {
  std::string bin = STOKER_BINARY;
  args.insert(args.begin(), bin);
  args.push_back(trace.string());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  struct rusage usage {};
  REQUIRE(wait4(pid, &status, 0, &usage) == pid);
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return usage.ru_maxrss;
}

}  // namespace

TEST_CASE("profile: memory does not grow with the JSON (a stream, not a document)", "[trace]") {
  if (!have_traces()) return;
#if defined(__SANITIZE_ADDRESS__)
  return;  // ASan's quarantine keeps freed memory: peak memory says nothing there
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return;
#endif
#endif
  // 92 events against 109,000 (35 MB of JSON): a DOM of the large one would take hundreds of
  // MB; the compact records it keeps, a few.
  long small = peak_kb(kTraces / "event_sync.json.gz"), large = peak_kb(kTraces / "trace_diff_control.json.gz");
  INFO("peak KB: " << small << " vs " << large);
  REQUIRE(large - small < 16 * 1024);
  // The same through `check --profile` (the join, the step model, the HTML timeline of one step).
  TempDir dir;
  write_text(dir / "train.py", "import torch\nfor x in loader:\n    print(x.cuda().sum().item())\n");
  const std::vector<std::string> check = {"check", "--no-cache", "--exit-zero", "--output-format", "html", "-o", (dir / "r.html").string(),
                                          (dir / "train.py").string(), "--profile"};
  long small_check = peak_kb(kTraces / "event_sync.json.gz", check), large_check = peak_kb(kTraces / "trace_diff_control.json.gz", check);
  INFO("check --profile peak KB: " << small_check << " vs " << large_check);
  REQUIRE(large_check - small_check < 16 * 1024);
}

TEST_CASE("profile: busy, idle and its attribution per step match an independent computation", "[trace]") {
  if (!have_traces()) return;
  for (const char* name : {"resnet_volta_rank0.json.gz", "sampled_rank0.json.gz", "event_sync.json.gz",
                           "cpu_only_rank34.json.gz", "trace_diff_control.json.gz"})
    compare(kTraces / name);
}

TEST_CASE("profile: a trace without ProfilerStep windows is measured as one window", "[trace]") {
  if (!have_traces()) return;
  json want = expected(kTraces / "alexnet_benchmark.json.gz");
  json got = stoker_profile(kTraces / "alexnet_benchmark.json.gz");
  REQUIRE(want["steps"].empty());
  REQUIRE(got["step_source"] == "trace");
  REQUIRE(got["steps"].size() == 1);
  require_close(got["steps"][0]["busy_ms"], want["gpu_union_ms"], "busy");
  // The README: GPU nearly idle, cudnn set-up and cudaFree.
  REQUIRE(got["gpu_busy_fraction"].get<double>() < 0.5);
  bool alloc = false;
  for (const auto& c : got["idle_attribution"]) alloc |= c["kind"] == "alloc" && c["idle_ms_per_step"].get<double>() > 0;
  REQUIRE(alloc);
}

TEST_CASE("profile --output-format json marks a trace without GPU events", "[trace]") {
  if (!have_traces()) return;
  json got = stoker_profile(kTraces / "cpu_only_rank34.json.gz");
  REQUIRE(got["gpu_events"] == false);
  REQUIRE(got["gpu_busy_fraction"].is_null());
  auto r = run_in(fs::current_path(), stoker_command("profile " + shell_quote((kTraces / "cpu_only_rank34.json.gz").string())));
  REQUIRE(r.rc == 0);
  REQUIRE(r.out.find("no GPU events in the trace") != std::string::npos);
}

TEST_CASE("check --profile: idle time no finding explains is listed with the host op running then", "[trace]") {
  if (!have_traces()) return;
  TempDir dir;
  write_text(dir / "clean.py", "import torch\nx = torch.zeros(3)\n");
  json want = expected(kTraces / "sampled_rank0.json.gz");
  double total = 0;
  for (const auto& s : want["steps"]) total += s["duration_ms"].get<double>();
  const double share = want["names"]["optimizer"]["Optimizer.step#Shampoo.step"].get<double>() / total;
  REQUIRE(share > 0.1);  // the README: a long host-side optimizer step
  auto r = run_in(dir.path, stoker_command("check clean.py --no-cache --profile " +
                                           shell_quote((kTraces / "sampled_rank0.json.gz").string())));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  char line[64];
  std::snprintf(line, sizeof line, "GPU idle %.0f%% of the step while the host runs Optimizer.step#Shampoo.step",
                100 * share);
  REQUIRE(r.out.find(line) != std::string::npos);
  REQUIRE(r.out.find("2 steps (ProfilerStep)") != std::string::npos);
}

TEST_CASE("check --profile joins a trace without stacks by pattern in the hot loop", "[trace]") {
  if (!have_traces()) return;
  TempDir dir;
  write_text(dir / "train.py", R"(import torch
model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    opt.step()
    print(loss.item())
)");
  json want = expected(kTraces / "event_sync.json.gz");
  auto r = run_in(dir.path, stoker_command("check train.py --no-cache --select SY --output-format json --profile " +
                                           shell_quote((kTraces / "event_sync.json.gz").string())));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 1);
  json findings = json::parse(r.out);
  bool found = false;
  for (const auto& f : findings) {
    if (f["code"] != "SY001") continue;
    found = true;
    const json& m = f["measured"];
    REQUIRE(m["match"] == "pattern");
    // sync-bubble: readbacks and synchronizations, one step.
    require_close(m["host_ms_per_step"], want["kinds"]["readback"]["host_ms"].get<double>() +
                                             want["kinds"]["sync"]["host_ms"].get<double>(), "host");
    require_close(m["gpu_idle_ms_per_step"], want["kinds"]["readback"]["idle_ms"].get<double>() +
                                                 want["kinds"]["sync"]["idle_ms"].get<double>(), "idle");
  }
  REQUIRE(found);
  // The loop's estimate is the measured step: busy now is the trace's busy share, and SY001's
  // fix removes the idle time measured during its readbacks and synchronizations.
  {
    double step = want["steps"][0]["duration_ms"], busy = want["steps"][0]["busy_ms"];
    double removed = want["kinds"]["readback"]["idle_ms"].get<double>() + want["kinds"]["sync"]["idle_ms"].get<double>();
    const json& l = findings[0]["measured_loop"];
    REQUIRE(l["gpu_events"] == true);
    require_close(l["busy_fraction"], busy / step, "busy");
    require_close(l["estimate"]["busy_now"][0], busy / step, "now");
    require_close(l["estimate"]["busy_after"][1], busy / (step - removed), "after");
    // Idle no finding explains is listed per loop, with what the host ran then: the Shampoo
    // optimizer step of sampled_rank0 (the README: a long host-side optimizer step).
    json sampled = expected(kTraces / "sampled_rank0.json.gz");
    double total = 0;
    for (const auto& st : sampled["steps"]) total += st["duration_ms"].get<double>();
    const double share = sampled["names"]["optimizer"]["Optimizer.step#Shampoo.step"].get<double>() / total;
    auto t = run_in(dir.path, stoker_command("check train.py --no-cache --select SY --profile " +
                                             shell_quote((kTraces / "sampled_rank0.json.gz").string())));
    char line[160];
    std::snprintf(line, sizeof line,
                  "\n    GPU idle %.0f%% of the step while the host runs Optimizer.step#Shampoo.step (no rule describes it)\n",
                  100 * share);
    INFO(t.out);
    REQUIRE(t.out.find("hot loop train.py:4, measured: step ") != std::string::npos);
    REQUIRE(t.out.find(line) != std::string::npos);
  }
  // SARIF carries the same on the result, and the trace's summary on the run.
  auto s = run_in(dir.path, stoker_command("check train.py --no-cache --select SY --output-format sarif --profile " +
                                           shell_quote((kTraces / "event_sync.json.gz").string())));
  json sarif = json::parse(s.out);
  const json& run = sarif["runs"][0];
  REQUIRE(run["properties"]["profile"]["steps"] == 1);
  REQUIRE(run["properties"]["profile"]["findings_joined"] == 1);
  bool carried = false;
  for (const auto& res : run["results"])
    if (res["ruleId"] == "SY001") carried = res["properties"]["measured"]["match"] == "pattern";
  REQUIRE(carried);
}

TEST_CASE("check --profile joins a CPU-recorded trace with Python stacks by source line", "[trace][torch]") {
  TempDir dir;
  const fs::path trace = dir / "trace.json.gz", expect = dir / "expect.json";
  auto rec = run_in(dir.path, "CUDA_VISIBLE_DEVICES= timeout 300 /usr/bin/python3 " +
                                  shell_quote((kTests / "record_cpu_trace.py").string()) + " " +
                                  shell_quote(trace.string()) + " " + shell_quote(expect.string()) + " 4");
  INFO(rec.err);
  REQUIRE(rec.rc == 0);
  json want = json::parse(read_text(expect));
  REQUIRE(want["steps"] == 4);
  const fs::path script = kTests / "starved_steps.py";
  auto r = run_in(dir.path, stoker_command("check " + shell_quote(script.string()) +
                                           " --no-cache --output-format json --profile " + shell_quote(trace.string())));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 1);
  json findings = json::parse(r.out);
  bool item = false, loader = false;
  for (const auto& f : findings) {
    const json& m = f["measured"];
    if (f["code"] == "SY001" && f["location"]["row"] == want["item_line"]) {
      item = true;
      // torch 1.13 on Python 3.11 gives the innermost frame its function's first line: the join
      // is through the stack to the function (read_loss) the finding is in.
      REQUIRE((m["match"] == "source line" || m["match"] == "function"));
      if (m["match"] == "function") REQUIRE(m["function"] == "read_loss");
      REQUIRE(m["events"] == json::array({"aten::item"}));
      require_close(m["host_ms_per_step"], want["item_ms_per_step"], "item host");
      REQUIRE(m["gpu_idle_ms_per_step"].is_null());  // a CPU trace: no GPU events
      require_close(m["step_ms"], want["step_ms"], "step");
    }
    if (f["code"] == "DL001" && f["location"]["row"] == want["loader_line"]) {
      loader = true;
      REQUIRE((m["match"] == "function" || m["match"] == "source line"));
      require_close(m["host_ms_per_step"], want["loader_ms_per_step"], "loader host");
    }
  }
  REQUIRE(item);
  REQUIRE(loader);
  // The readback in evaluate(), which did not run while profiling, gets no measurement: a
  // trace with stacks joins by source location, not by pattern.
  bool eval = false;
  for (const auto& f : findings)
    if (f["code"] == "SY001" && f["location"]["row"] != want["item_line"]) {
      eval = true;
      REQUIRE(f["measured"].is_null());
    }
  REQUIRE(eval);
  // The text report says it on the finding and sums up the trace.
  auto t = run_in(dir.path, stoker_command("check " + shell_quote(script.string()) + " --no-cache --profile " +
                                           shell_quote(trace.string())));
  REQUIRE(t.out.find("= measured: ") != std::string::npos);
  REQUIRE(t.out.find("4 steps (ProfilerStep)") != std::string::npos);
  REQUIRE(t.out.find("no GPU events") != std::string::npos);

  // The estimate takes the measured step. Without GPU events the GPU's share of the step is the
  // step less its host waits (every wait kind, joined or not: expect_profile.py), the loader's
  // time on the main process is T_load, and each joined finding's term is its measured wait; so
  // busy now is (step - waits) / step, and after the fixes (8 workers, the default; no readback)
  // the loader's wait is max(0, T_load / 8 - T_gpu) (docs/impact-model.md).
  json kinds_want = expected(trace);
  double waits = 0;
  for (const auto& [kind, v] : kinds_want["kinds"].items())
    if (kind != "optimizer") waits += v["host_ms"].get<double>();
  waits /= want["steps"].get<double>();
  const double step = want["step_ms"], load = want["loader_ms_per_step"];
  const double gpu = step - waits;
  REQUIRE(gpu > 0);
  const double busy_now = gpu / step, busy_after = gpu / (gpu + std::max(0.0, load / 8 - gpu));
  bool checked = false;
  json plain = json::parse(run_in(dir.path, stoker_command("check " + shell_quote(script.string()) +
                                                             " --no-cache --output-format json")).out);
  for (const auto& f : findings) {
    if (f["code"] != "DL001") continue;
    const json& l = f["measured_loop"];
    REQUIRE(l.is_object());
    REQUIRE(l["steps"] == 4);
    REQUIRE(l["gpu_events"] == false);
    require_close(l["step_ms"], step, "loop step");
    require_close(l["gpu_busy_ms"], gpu, "loop GPU");
    require_close(l["busy_fraction"], busy_now, "loop busy");
    for (int i = 0; i < 2; ++i) {
      require_close(l["estimate"]["busy_now"][i], busy_now, "estimate now");
      require_close(l["estimate"]["busy_after"][i], busy_after, "estimate after");
    }
    // The idle breakdown: the loader's wait, explained by DL001.
    REQUIRE(l["idle"][0]["kind"] == "loader");
    require_close(l["idle"][0]["ms_per_step"], load, "loader part");
    REQUIRE(l["idle"][0]["findings"] == json::array({"DL001 line " + std::to_string(want["loader_line"].get<int>())}));
    // The gains of the loop's findings add up to the loop's gain, the loader's the most of it;
    // its assumptions say what was measured.
    double sum = 0;
    for (const auto& g : findings)
      if (g["measured_loop"].is_object()) sum += g["impact"]["gain_pp"][0].get<double>();
    require_close(sum, 100 * (busy_after - busy_now), "the loop's gains");
    REQUIRE(f["impact"]["gain_pp"][0].get<double>() > 0.9 * sum);
    bool t_gpu = false, t_load = false;
    for (const auto& a : f["impact"]["assumptions"]) {
      std::string line = a;
      t_gpu |= line.rfind("T_gpu=", 0) == 0 && line.find("(measured: trace.json.gz, 4 steps") != std::string::npos;
      t_load |= line.rfind("T_load=", 0) == 0 && line.find("(measured: ") != std::string::npos;
    }
    REQUIRE(t_gpu);
    REQUIRE(t_load);
    // Without the trace: the same script, the defaults, another estimate.
    for (const auto& g : plain)
      if (g["code"] == "DL001") {
        checked = true;
        REQUIRE(g["impact"]["gain_pp"] != f["impact"]["gain_pp"]);
        bool defaults = false;
        for (const auto& a : g["impact"]["assumptions"])
          defaults |= a.get<std::string>().rfind("T_gpu=", 0) == 0 && a.get<std::string>().find("(default") != std::string::npos;
        REQUIRE(defaults);
      }
  }
  REQUIRE(checked);
  // evaluate()'s loop did not run: not measured.
  for (const auto& f : findings)
    if (f["code"] == "SY001" && f["location"]["row"] != want["item_line"]) REQUIRE(f["measured_loop"].is_null());
  char line[96];
  std::snprintf(line, sizeof line, "est. GPU busy %.0f%% now, %.0f%% after its fixes (measured step)", 100 * busy_now,
                100 * busy_after);
  INFO(t.out);
  REQUIRE(t.out.find(line) != std::string::npos);
}

TEST_CASE("profile: malformed and truncated traces are clear errors", "[trace]") {
  TempDir dir;
  std::string good = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 20}]})";
  write_text(dir / "good.json", good);
  write_text(dir / "cut.json", good.substr(0, good.size() / 2));
  write_text(dir / "other.json", R"({"a": [1, 2]})");
  write_text(dir / "binary.json", std::string("\x00\x01\x02garbage", 10));
  // gzip: the good trace compressed, then cut in the middle; and a corrupted copy.
  std::string gz(256, '\0');
  {
    z_stream zs{};
    REQUIRE(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    zs.next_in = reinterpret_cast<Bytef*>(good.data());
    zs.avail_in = static_cast<uInt>(good.size());
    gz.resize(deflateBound(&zs, good.size()));
    zs.next_out = reinterpret_cast<Bytef*>(gz.data());
    zs.avail_out = static_cast<uInt>(gz.size());
    REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    gz.resize(zs.total_out);
    deflateEnd(&zs);
  }
  write_text(dir / "good.json.gz", gz);
  write_text(dir / "cut.json.gz", gz.substr(0, gz.size() / 2));
  std::string bad = gz;
  for (size_t i = 12; i < bad.size() - 8; i += 3) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  write_text(dir / "bad.json.gz", bad);

  auto profile = [&](const std::string& name) {
    return run_in(dir.path, stoker_command("profile --output-format json " + name));
  };
  for (const char* name : {"good.json", "good.json.gz"}) {
    auto r = profile(name);
    INFO(name << ": " << r.err);
    REQUIRE(r.rc == 0);
    json j = json::parse(r.out);
    REQUIRE(j["steps"].size() == 1);
    require_close(j["steps"][0]["busy_ms"], 0.005, "busy");
  }
  struct Case {
    const char* file;
    const char* says;
  };
  for (const Case& c : {Case{"cut.json", "(truncated?)"}, Case{"cut.json.gz", "truncated gzip data"},
                        Case{"bad.json.gz", "corrupt gzip data"}, Case{"other.json", "no `traceEvents` array"},
                        Case{"binary.json", "not valid JSON"}, Case{"missing.json", "cannot open the trace"}}) {
    auto r = profile(c.file);
    INFO(c.file << ": " << r.err);
    REQUIRE(r.rc == 2);
    REQUIRE(r.out.empty());
    REQUIRE(r.err.find(c.says) != std::string::npos);
  }
  // check --profile: a bad trace stops before any report.
  write_text(dir / "clean.py", "import torch\n");
  auto r = run_in(dir.path, stoker_command("check clean.py --no-cache --profile cut.json.gz"));
  REQUIRE(r.rc == 2);
  REQUIRE(r.out.empty());
  REQUIRE(r.err.find("cut.json.gz: cannot read the trace: truncated gzip data") != std::string::npos);
}

TEST_CASE("check --profile: Kineto python_function frames join findings in the function they name", "[trace]") {
  // The shape torch.profiler (Kineto, with_stack=True) writes: each Python call is an event of
  // category python_function named "file(first line): function", nested on the thread; an op
  // is inside the frames that contain it. Times in microseconds; one step of 100 us, the GPU
  // busy for its first 50.
  TempDir dir;
  write_text(dir / "train.py", R"(import torch
model = torch.nn.Linear(8, 1).cuda()


def read_loss(loss):
    value = 0
    return loss.item() + value


def other(loss):
    return loss.item()


for x in loader:
    loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    print(read_loss(loss))

for x in val_loader:
    print(other(model(x.cuda(non_blocking=True)).sum()))
)");
  write_text(dir / "trace.json", R"({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 5, "tid": 5, "ts": 1000, "dur": 100},
    {"ph": "X", "cat": "python_function", "name": "/somewhere/else/proj/train.py(1): <module>", "pid": 5, "tid": 5, "ts": 990, "dur": 200},
    {"ph": "X", "cat": "python_function", "name": "/somewhere/else/proj/train.py(5): read_loss", "pid": 5, "tid": 5, "ts": 1060, "dur": 30},
    {"ph": "X", "cat": "python_function", "name": "<built-in method item of Tensor object at 0x7f00>", "pid": 5, "tid": 5, "ts": 1061, "dur": 28},
    {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 5, "tid": 5, "ts": 1062, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_local_scalar_dense", "pid": 5, "tid": 5, "ts": 1063, "dur": 18},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 5, "tid": 5, "ts": 1064, "dur": 10},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1000, "dur": 50},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7, "ts": 1000, "dur": 100}
  ]})");
  auto r = run_in(dir.path, stoker_command("check train.py --no-cache --select SY001 --output-format json --profile trace.json"));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 1);
  json findings = json::parse(r.out);
  REQUIRE(findings.size() == 2);
  for (const auto& f : findings) {
    if (f["location"]["row"] == 7) {  // in read_loss: the frames name it
      const json& m = f["measured"];
      REQUIRE(m["match"] == "function");
      REQUIRE(m["function"] == "read_loss");
      REQUIRE(m["events"] == json::array({"aten::item"}));
      require_close(m["host_ms_per_step"], 0.020, "host");     // aten::item, its callees inside it
      require_close(m["gpu_idle_ms_per_step"], 0.020, "idle");  // all after the kernel
      require_close(m["step_ms"], 0.100, "step");
    } else {
      REQUIRE(f["location"]["row"] == 11);  // other(): never ran
      REQUIRE(f["measured"].is_null());
    }
  }
}

TEST_CASE("profile: a call in its caller's last whole microsecond is inside it (autograd profiler clocks)", "[trace]") {
  // The autograd profiler floors both ends of every event to whole microseconds, so the
  // aten::_local_scalar_dense that aten::item calls can start at aten::item's end with no length
  // left, or both can have none. Either way it is the one readback, named by the caller.
  TempDir dir;
  write_text(dir / "train.py", R"(import torch
model = torch.nn.Linear(8, 1).cuda()


def read_loss(loss):
    value = 0
    return loss.item() + value


for x in loader:
    loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    print(read_loss(loss))
)");
  const std::string stack = R"("args": {"Call stack": "<built-in method item of Tensor object at 0x7f00>;/p/train.py(7): read_loss;/p/train.py(14): <module>"})";
  auto ev = [&](const std::string& name, int ts, int dur) {
    return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 5, "tid": 1, "ts": )" +
           std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + ", " + stack + "}";
  };
  auto step = [](int n, int ts) {
    return R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(n) +
           R"(", "pid": 5, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": 100, "args": {}})";
  };
  // Step 1: the callee at its caller's end ([1050, 1050] in [1048, 1050]); step 2: both of no
  // length at one instant, the caller recorded first; step 3: an ordinary nesting; steps 4 and
  // 5: torch 1.13 without Kineto floors start and duration apart, so the caller's written end
  // can be a microsecond short and its callee written past it ([1350, 1350] after [1348, 1349];
  // [1449, 1450] after [1448, 1449]).
  write_text(dir / "trace.json", "{\"schemaVersion\": 1, \"traceEvents\": [" + step(1, 1000) + ",\n" +
                                     ev("aten::item", 1048, 2) + ",\n" + ev("aten::_local_scalar_dense", 1050, 0) + ",\n" +
                                     step(2, 1100) + ",\n" + ev("aten::item", 1150, 0) + ",\n" +
                                     ev("aten::_local_scalar_dense", 1150, 0) + ",\n" + step(3, 1200) + ",\n" +
                                     ev("aten::item", 1250, 7) + ",\n" + ev("aten::_local_scalar_dense", 1253, 3) + ",\n" +
                                     step(4, 1300) + ",\n" + ev("aten::item", 1348, 1) + ",\n" +
                                     ev("aten::_local_scalar_dense", 1350, 0) + ",\n" + step(5, 1400) + ",\n" +
                                     ev("aten::item", 1448, 1) + ",\n" + ev("aten::_local_scalar_dense", 1449, 1) + "]}");
  auto r = run_in(dir.path, stoker_command("check train.py --no-cache --select SY001 --output-format json --profile trace.json"));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 1);
  json findings = json::parse(r.out);
  REQUIRE(findings.size() == 1);
  const json& m = findings[0]["measured"];
  REQUIRE(m["events"] == json::array({"aten::item"}));
  require_close(m["host_ms_per_step"], (2 + 0 + 7 + 1 + 1) / 5.0 / 1000, "host");  // the callers' time only
  require_close(m["step_ms"], 0.100, "step");
}

TEST_CASE("check --profile joins a notebook's cells named by IPython's file names", "[trace][notebook]") {
  // An nbformat-made notebook: the readback in a cell's `def read_loss` (after a line magic), the
  // loop in another. IPython compiles each cell under a name of its own (ipykernel: a temporary
  // file; older IPython: <ipython-input-N-hash>), rows within the cell; Kineto's python_function
  // events name a function by its first row. Times in microseconds: one step of 100 us, the GPU
  // busy from 35 to 55.
  for (const char* cell_file : {"/tmp/ipykernel_4242/1234567.py", "<ipython-input-3-0f1e2d3c>"}) {
    TempDir dir;
    write_text(dir / "make.py", R"py(import nbformat
nb = nbformat.v4.new_notebook()
code = nbformat.v4.new_code_cell
nb.cells = [code("import torch\nfrom torch.utils.data import DataLoader\nmodel = torch.nn.Linear(8, 1).cuda()\n"
                 "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nloader = DataLoader(torch.randn(64, 8), batch_size=4)"),
            nbformat.v4.new_markdown_cell("The readback"),
            code("%matplotlib inline\ndef read_loss(loss):\n    value = 0\n    return loss.item() + value"),
            code("for x in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n    print(read_loss(loss))")]
nbformat.validate(nb)
nbformat.write(nb, "train.ipynb")
)py");
    auto made = run_in(dir.path, "/usr/bin/python3 make.py");
    INFO(made.err);
    REQUIRE(made.rc == 0);
    std::string trace = R"({"schemaVersion": 1, "traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 5, "tid": 5, "ts": 1000, "dur": 100},
      {"ph": "X", "cat": "python_function", "name": "/tmp/ipykernel_4242/3018392.py(1): <module>", "pid": 5, "tid": 5, "ts": 990, "dur": 200},
      {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 5, "tid": 5, "ts": 1002, "dur": 30},
      {"ph": "X", "cat": "python_function", "name": "CELL(2): read_loss", "pid": 5, "tid": 5, "ts": 1060, "dur": 30},
      {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 5, "tid": 5, "ts": 1062, "dur": 20},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1035, "dur": 20}
    ]})";
    trace.replace(trace.find("CELL"), 4, cell_file);
    write_text(dir / "trace.json", trace);
    auto r = run_in(dir.path, stoker_command("check train.ipynb --no-cache --output-format json --profile trace.json"));
    INFO(cell_file << "\n" << r.out << r.err);
    REQUIRE(r.rc == 1);
    json findings = json::parse(r.out);
    bool item = false, loader = false;
    for (const auto& f : findings) {
      const json& m = f["measured"];
      if (f["code"] == "SY001") {
        item = true;
        REQUIRE(f["cell"] == 3);  // the third cell (the markdown one counts)
        REQUIRE(m["match"] == "function");  // row 2 of the cell that defines read_loss
        REQUIRE(m["function"] == "read_loss");
        require_close(m["host_ms_per_step"], 0.020, "item host");
        require_close(m["gpu_idle_ms_per_step"], 0.020, "item idle");
      }
      if (f["code"] == "DL001") {
        loader = true;
        REQUIRE(m["match"] == "pattern");  // the loop runs at a cell's module level: no function
        require_close(m["host_ms_per_step"], 0.030, "loader host");
        require_close(m["gpu_idle_ms_per_step"], 0.030, "loader idle");  // the kernel starts at 35
        // The loop's estimate starts from the measured step: busy 20 of 100 us.
        const json& l = f["measured_loop"];
        REQUIRE(l.is_object());
        require_close(l["busy_fraction"], 0.2, "busy");
        require_close(l["estimate"]["busy_now"][0], 0.2, "now");
        require_close(l["estimate"]["busy_now"][1], 0.2, "now");
        bool tagged = false;
        for (const auto& part : l["idle"])
          tagged |= part["kind"] == "loader" && part["findings"] == json::array({"DL001 cell 1 line 5"});
        REQUIRE(tagged);
      }
    }
    REQUIRE(item);
    REQUIRE(loader);
  }
}

// Target (t): profiler traces (`stoker profile`, `stoker check --profile`) on arbitrary bytes:
// read as a trace (plain JSON, or gzip when the bytes say so), measured, written as JSON and
// text, joined to the findings of a small fixed script (by Python stack or by pattern, as the
// input decides), fed into that script's step model, and the text and HTML reports written.
// The only exception the reader may throw is TraceError.
#include <memory>
#include <sstream>

#include "core/analyzer.h"
#include "core/rules.h"
#include "fuzz_support.h"
#include "output/report.h"
#include "trace/join.h"

namespace {

// Frames naming train.py lines 8 and 12 (the seeds do) join by stack; without stacks, by pattern.
const char* kScript = R"(import torch
from torch.utils.data import DataLoader
model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(range(64), batch_size=4)


def read_loss(loss):
    return loss.item()


for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    opt.step()
    print(read_loss(loss))
    torch.cuda.synchronize()
)";

const stoker::Report& fixed_report() {
  static const stoker::Report report = [] {
    using namespace stoker;
    Report r;
    auto source = std::make_shared<SourceFile>(std::string(fuzz::kFuzzDir) + "train.py", kScript);
    AnalysisResult result = analyze(*source, Settings{});
    r.files_analyzed = 1;
    r.analyzed_files = {source->path};
    r.files.push_back(FileReport{source, std::move(result)});
    return r;
  }();
  return report;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stoker;
  const RuleRegistry& rules = RuleRegistry::builtin();
  trace::Profile profile;
  try {
    profile = trace::measure(trace::parse_trace(fuzz::bytes(data, size), "trace.json"));
  } catch (const trace::TraceError& e) {
    (void)e.what();
    return 0;
  }
  (void)trace::profile_json(profile);
  (void)trace::profile_text(profile);
  Report report = fixed_report();
  auto measured = std::make_shared<trace::MeasuredReport>(trace::join(std::move(profile), report, rules));
  trace::apply_to_estimates(*measured, report, [](const std::string&) { return Settings{}; });
  report.measured = measured;
  std::ostringstream out;
  output::write_text(out, report, rules, TextOptions{});
  output::write_json(out, report, rules);
  output::write_html(out, report, rules);
  return 0;
}

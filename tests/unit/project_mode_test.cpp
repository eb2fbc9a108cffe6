// Project mode (src/python/project.h) through the real front end: every case directory of
// tests/fixtures/python/project is analyzed as a project (the runner, as `stoker check DIR`),
// and its findings are exactly the `# expect:` markers of all its files. The real binary on
// one file of a project reads the other modules and reports only that file.
#include <catch2/catch.hpp>

#include <map>

#include "cli_support.h"
#include "core/runner.h"
#include "python/project.h"
#include "python/project_fields.h"
#include "python/project_fingerprints.h"
#include "python/types.h"
#include "python/types_detail.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace stoker;
using Findings = std::multiset<std::pair<uint32_t, std::string>>;

namespace {

fs::path project_fixtures() { return fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python/project"; }

std::vector<fs::path> python_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Findings per file (path relative to `dir`) of the runner on `paths`.
std::map<std::string, Findings> run(const fs::path& dir, std::vector<std::string> paths, bool project = true) {
  RunOptions opts;
  opts.paths = std::move(paths);
  opts.threads = 2;
  opts.project = project;
  Report report = run_analysis(opts, Settings{});
  INFO("errors: " << report.errors.size());
  CHECK(report.errors.empty());
  std::map<std::string, Findings> out;
  for (const auto& f : report.files)
    out[fs::relative(f.source->path, dir).string()] = test::found(*f.source, f.result);
  return out;
}

std::map<std::string, Findings> expected(const fs::path& dir) {
  std::map<std::string, Findings> out;
  for (const auto& p : python_files(dir)) {
    auto want = test::expectations(test::read_file(p));
    if (!want.empty()) out[fs::relative(p, dir).string()] = want;
  }
  return out;
}

std::string describe(const std::map<std::string, Findings>& m) {
  std::string out;
  for (const auto& [file, f] : m) out += file + ":\n" + test::describe(f);
  return out.empty() ? "(none)\n" : out;
}

}  // namespace

TEST_CASE("project fixtures report exactly their expectations in every module", "[project]") {
  size_t cases = 0;
  for (const auto& e : fs::directory_iterator(project_fixtures())) {
    if (!e.is_directory()) continue;
    ++cases;
    auto want = expected(e.path());
    auto got = run(e.path(), {e.path().string()});
    INFO("case " << e.path().filename().string() << "\nexpected:\n" << describe(want) << "found:\n" << describe(got));
    CHECK(want == got);
  }
  CHECK(cases >= 4);
}

TEST_CASE("without project mode the split layout loses its findings outside main.py", "[project]") {
  fs::path dir = project_fixtures() / "split_modules";
  auto alone = run(dir, {dir.string()}, false);
  CHECK(alone.count("engine.py") == 0);
  CHECK(alone.count("utils.py") == 0);
  auto project = run(dir, {dir.string()});
  CHECK(project.count("engine.py") == 1);
  CHECK(project.count("utils.py") == 1);
}

TEST_CASE("checking one module reads its siblings and reports only that module", "[project]") {
  fs::path dir = project_fixtures() / "split_modules";
  for (const char* name : {"engine.py", "utils.py", "main.py"}) {
    auto got = run(dir, {(dir / name).string()});
    auto want = expected(dir);
    std::map<std::string, Findings> only;
    if (want.count(name)) only[name] = want[name];
    INFO(name << "\nexpected:\n" << describe(only) << "found:\n" << describe(got));
    CHECK(got == only);
  }
  // The real binary, as a user runs it.
  auto r = testing::run_in(dir, testing::stoker_command("check --no-cache --output-format concise engine.py"));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("engine.py:"));
  CHECK_THAT(r.out, !Catch::Contains("main.py:"));
  CHECK_THAT(r.out, !Catch::Contains("utils.py:"));
  CHECK_THAT(r.out, Catch::Contains("SY001"));
  auto alone = testing::run_in(dir, testing::stoker_command("check --no-cache --no-project --output-format concise engine.py"));
  CHECK(alone.rc == 0);
}

TEST_CASE("module names from the layout and imports resolved between them", "[project]") {
  fs::path pkg = project_fixtures() / "package";
  std::vector<std::string> paths;
  for (const auto& p : python_files(pkg)) paths.push_back(p.string());
  python::ProjectLayout layout(paths);
  std::map<std::string, int> by_file;
  for (size_t i = 0; i < layout.size(); ++i) by_file[fs::relative(layout.path(i), pkg).string()] = static_cast<int>(i);
  CHECK(layout.name(by_file["run.py"]) == "run");
  CHECK(layout.name(by_file["mylib/__init__.py"]) == "mylib");
  CHECK(layout.name(by_file["mylib/loop.py"]) == "mylib.loop");
  int loop = by_file["mylib/loop.py"];
  CHECK(layout.absolute(loop, ".meters.Average") == "mylib.meters.Average");
  CHECK(layout.absolute(loop, "..x") == "x");
  CHECK(layout.absolute(loop, "...x").empty());  // above the top package
  auto [m, rest] = layout.split(loop, "mylib.meters.Average.add");
  CHECK(m == by_file["mylib/meters.py"]);
  CHECK(rest == "Average.add");
  CHECK(layout.is_project_name(loop, "mylib.fit_epoch"));
  CHECK_FALSE(layout.is_project_name(loop, "torch.nn.Linear"));

  // src/ layout: the root is src/, the package `proj`.
  fs::path src = project_fixtures() / "srclayout";
  std::vector<std::string> sp;
  for (const auto& p : python_files(src)) sp.push_back(p.string());
  python::ProjectLayout sl(sp);
  for (size_t i = 0; i < sl.size(); ++i)
    if (fs::path(sl.path(i)).filename() == "engine.py") CHECK(sl.name(i) == "proj.engine");

  // Namespace packages: models/vit.py next to train.py is `models.vit` (and `vit`).
  testing::TempDir d;
  testing::write_text(d / "train.py", "from models.vit import ViT\n");
  testing::write_text(d / "models/vit.py", "class ViT: pass\n");
  python::ProjectLayout ns({(d / "train.py").string(), (d / "models/vit.py").string()});
  CHECK(ns.split(0, "models.vit.ViT").first == 1);
  CHECK(ns.split(0, "models.vit.ViT").second == "ViT");

  // Several modules named `utils`: the one in the importer's directory, else the nearest one
  // sharing the most leading path components (not whichever the file list names first).
  testing::TempDir t;
  for (const char* f : {"old_version/utils.py", "old_version/train.py", "train.py", "utils.py", "models/utils.py",
                        "tools/run.py", "tools_extra/utils.py"})
    testing::write_text(t / f, "import torch\n");
  std::vector<std::string> tp;
  for (const char* f : {"models/utils.py", "old_version/train.py", "old_version/utils.py", "tools/run.py",
                        "tools_extra/utils.py", "train.py", "utils.py"})
    tp.push_back((t / f).string());
  python::ProjectLayout tl(tp);
  auto file_of = [&](size_t importer) { return fs::relative(tl.path(tl.split(importer, "utils.f").first), t.path).string(); };
  CHECK(file_of(5) == "utils.py");              // train.py
  CHECK(file_of(1) == "old_version/utils.py");  // old_version/train.py
  CHECK(file_of(3) == "utils.py");              // tools/run.py: not tools_extra/ (a shared prefix of characters only)

  // A checkout that is a package named like one of its modules (set BG tgn): tgn/__init__.py is
  // `tgn`, tgn/model/tgn.py takes the longer name it has under the checkout's parent, so that the
  // canonical name of its class (`tgn.model.tgn.TGN`) names that file from every module.
  testing::TempDir g;
  testing::write_text(g / "tgn/__init__.py", "");
  testing::write_text(g / "tgn/model/tgn.py", "class TGN: pass\n");
  testing::write_text(g / "tgn/evaluation/evaluation.py", "import numpy\n");
  testing::write_text(g / "tgn/train.py", "from model.tgn import TGN\n");
  std::vector<std::string> gp;
  for (const char* f : {"tgn/__init__.py", "tgn/model/tgn.py", "tgn/evaluation/evaluation.py", "tgn/train.py"})
    gp.push_back((g / f).string());
  python::ProjectLayout gl(gp);
  CHECK(gl.name(0) == "tgn");
  CHECK(gl.name(1) == "tgn.model.tgn");
  CHECK(gl.name(2) == "evaluation");  // a name no other file has: unchanged
  CHECK(gl.name(3) == "tgn.train");
  CHECK(gl.split(2, "tgn.model.tgn.TGN").first == 1);
  CHECK(gl.split(2, "tgn.model.tgn.TGN").second == "TGN");
}

TEST_CASE("module state survives the cache round trip and foreign text is refused", "[project]") {
  python::ModuleSummary s;
  s.uses_cuda = true;
  python::FunctionFacts f;
  f.has_hot_loop = true;
  f.params.push_back({"loader", false, false, false, true});
  f.params.push_back({"closure", false, false, false, false, true});  // called by the function
  s.functions.push_back({"train", f});
  python::FunctionFacts k;  // a class: its kind, what iterating an instance yields, its attributes
  k.method = true;
  k.is_class = true;
  k.module_kind = 0;
  k.iter_kind = 7;
  k.iter_device = 2;
  k.attrs.push_back({"device", 9, 2});
  k.loader_class = true;  // a DataLoader subclass built from its constructor's arguments
  k.returns_first_item = true;  // a collate_fn returning examples[0]
  k.hot_self_calls.push_back("train_step");  // its loop runs `self.train_step()` per step
  s.functions.push_back({"Prefetcher", k});
  python::FunctionFacts constant;  // a module-level constant (`num_workers = 0`)
  constant.const_values.push_back({python::ScalarFact::Kind::Int, 0});
  s.functions.push_back({"num_workers", constant});
  python::FunctionFacts parse;  // `def add_args(parser): ...; return parser.parse_args()`
  parse.returns_namespace = true;
  parse.namespace_values.push_back({"batch_size", {{python::ScalarFact::Kind::Int, 8}}});
  s.functions.push_back({"add_args", parse});
  s.module_stores.push_back("config.batch_size");
  s.module_reads.push_back("config.num_workers");
  s.imports.push_back({"fit", ".loop.fit"});
  s.star_imports.push_back(".trainer_base");
  python::OutgoingCall c;
  c.callee = ".utils.Meter.add";
  c.hot = true;
  python::ArgFacts a;
  a.cuda = true;
  a.values.push_back({python::ScalarFact::Kind::Int, 3});
  c.positional.push_back(a);
  c.keywords.push_back({"x", a});
  c.attrs_fed.push_back("train");  // `for batch in meter.train` of the instance it builds
  c.splat = c.splat_cuda = true;    // `meter.add(*cuda_values)`
  s.calls.push_back(c);
  python::QueryLog q;
  q["ctrain#0"] = {python::ModuleEnv::Query{'c', "train", 0}, "null"};
  std::string text = python::serialize_module_state(s, q);
  python::ModuleSummary back;
  python::QueryLog qback;
  REQUIRE(python::parse_module_state(text, back, qback));
  CHECK(back.functions.size() == 4);
  CHECK(back.functions[0].second == f);
  CHECK(back.functions[1].second == k);
  CHECK(back.functions[2].second == constant);
  CHECK(back.functions[3].second == parse);
  CHECK(back.module_stores == s.module_stores);
  CHECK(back.module_reads == s.module_reads);
  CHECK(back.star_imports == s.star_imports);
  CHECK(back.calls.size() == 1);
  CHECK(back.calls[0].positional[0] == a);
  CHECK(back.calls[0].attrs_fed == c.attrs_fed);
  CHECK(back.calls[0].splat);
  CHECK(back.calls[0].splat_cuda);
  CHECK(back.imports == s.imports);
  CHECK(qback.size() == 1);
  CHECK_FALSE(python::parse_module_state("{}", back, qback));
  CHECK_FALSE(python::parse_module_state("not json", back, qback));
}

TEST_CASE("a table built over changed summaries keeps only the resolutions whose modules kept their names", "[project]") {
  // main.py resolves `lib.Net` through lib/__init__.py's re-export to lib/impl.py's class.
  testing::TempDir d;
  testing::write_text(d / "main.py", "from lib import Net\n");
  testing::write_text(d / "lib/__init__.py", "from .impl import Net\n");
  testing::write_text(d / "lib/impl.py", "class Net: pass\n");
  testing::write_text(d / "other.py", "x = 1\n");
  python::ProjectLayout layout({(d / "main.py").string(), (d / "lib/__init__.py").string(),
                                (d / "lib/impl.py").string(), (d / "other.py").string()});
  python::FunctionFacts klass;
  klass.method = true;
  klass.is_class = true;
  python::ModuleSummary main, lib, impl, impl2, other, other2;
  main.imports.push_back({"Net", "lib.Net"});
  lib.imports.push_back({"Net", ".impl.Net"});
  impl.functions.push_back({"Net", klass});
  impl2.functions.push_back({"Model", klass});  // Net renamed: `lib.Net` names nothing now
  other2.functions.push_back({"helper", python::FunctionFacts{}});
  std::vector<const python::ModuleSummary*> latest{&main, &lib, &impl, &other};
  auto t1 = std::make_unique<python::FactsTable>(layout, latest);
  auto r = t1->resolve(0, "lib.Net");
  REQUIRE(r);
  CHECK(r->first == 2);
  CHECK(r->second == "Net");
  CHECK(t1->resolve(0, "lib.Model") == std::nullopt);
  // Another module changed: the entries stand (and still answer as a fresh table does).
  latest[3] = &other2;
  auto t2 = std::make_unique<python::FactsTable>(layout, latest, t1.get());
  python::FactsTable fresh2(layout, latest);
  CHECK(t2->resolve(0, "lib.Net") == fresh2.resolve(0, "lib.Net"));
  CHECK(t2->resolve(0, "lib.Net")->first == 2);
  // The module the resolution read changed its names: resolved again.
  latest[2] = &impl2;
  auto t3 = std::make_unique<python::FactsTable>(layout, latest, t2.get());
  CHECK(t3->resolve(0, "lib.Net") == std::nullopt);
  auto m = t3->resolve(0, "lib.Model");
  CHECK(m == std::nullopt);  // lib re-exports only Net
  CHECK(t3->resolve(2, "lib.impl.Model") == std::make_optional(std::make_pair(2, std::string("Model"))));
  // And back.
  latest[2] = &impl;
  auto t4 = std::make_unique<python::FactsTable>(layout, latest, t3.get());
  CHECK(t4->resolve(0, "lib.Net") == std::make_optional(std::make_pair(2, std::string("Net"))));
  CHECK(t4->resolve(2, "lib.impl.Model") == std::nullopt);
}

TEST_CASE("a table taken over from the previous one answers attribute_mentioned as a fresh table does", "[project]") {
  // The attribute-name index moves from table to table; only the modules with another summary
  // (version) leave it and join it again.
  testing::TempDir d;
  testing::write_text(d / "a.py", "x = 1\n");
  testing::write_text(d / "b.py", "x = 1\n");
  testing::write_text(d / "c.py", "x = 1\n");
  python::ProjectLayout layout({(d / "a.py").string(), (d / "b.py").string(), (d / "c.py").string()});
  python::ModuleSummary a, b1, b2, c1, c2;
  a.attribute_names = {"lr"};
  b1.attribute_names = {"lr", "num_workers"};
  b2.attribute_names = {"batch_size"};
  c1.attribute_names = {"num_workers"};
  c2.attribute_names = {"*"};
  std::vector<const python::ModuleSummary*> latest{&a, &b1, &c1};
  std::vector<uint64_t> version{1, 2, 3};
  auto check = [&](const python::FactsTable& t) {
    python::FactsTable fresh(layout, latest);
    for (int from = 0; from < 3; ++from)
      for (const char* name : {"lr", "num_workers", "batch_size", "momentum"}) {
        INFO(from << " " << name);
        CHECK(t.attribute_mentioned(from, name) == fresh.attribute_mentioned(from, name));
      }
  };
  auto t1 = std::make_unique<python::FactsTable>(layout, latest, nullptr, &version);
  check(*t1);
  CHECK(t1->attribute_mentioned(0, "num_workers"));
  CHECK_FALSE(t1->attribute_mentioned(2, "batch_size"));
  latest[1] = &b2, version[1] = 4;  // b: lr and num_workers gone, batch_size new
  auto t2 = std::make_unique<python::FactsTable>(layout, latest, t1.get(), &version);
  check(*t2);
  CHECK_FALSE(t2->attribute_mentioned(0, "lr"));  // only a.py names it now
  CHECK(t2->attribute_mentioned(0, "batch_size"));
  CHECK_FALSE(t2->attribute_mentioned(1, "batch_size"));
  latest[2] = &c2, version[2] = 5;  // c: any name
  auto t3 = std::make_unique<python::FactsTable>(layout, latest, t2.get(), &version);
  check(*t3);
  CHECK(t3->attribute_mentioned(0, "momentum"));
  CHECK_FALSE(t3->attribute_mentioned(2, "momentum"));
  latest[2] = nullptr, version[2] = 6;  // c: no summary (its names leave)
  auto t4 = std::make_unique<python::FactsTable>(layout, latest, t3.get(), &version);
  check(*t4);
  CHECK_FALSE(t4->attribute_mentioned(0, "momentum"));
}

TEST_CASE("a table taking over the function maps of unchanged summaries answers as a fresh table does", "[project]") {
  // config.py's constant loses its values in a table where trainer.py stores into it (a
  // synthesized entry replaces the summary's); a later table takes config.py's map over (same
  // summary) and must see the summary's facts again once the store is gone, and the
  // synthesized ones while it is there.
  testing::TempDir d;
  testing::write_text(d / "config.py", "batch_size = 32\n");
  testing::write_text(d / "trainer.py", "import config\nconfig.batch_size = 64\n");
  python::ProjectLayout layout({(d / "config.py").string(), (d / "trainer.py").string()});
  // The texts as the stores of modules left unanalyzed are read (none here: both have a summary).
  const std::string texts[] = {"batch_size = 32\n", "import config\nconfig.batch_size = 64\n"};
  layout.index_words({texts[0], texts[1]});
  python::FunctionFacts constant;
  constant.const_values.push_back({python::ScalarFact::Kind::Int, 32});
  python::FunctionFacts helper;  // a function of config.py no table replaces
  python::ModuleSummary cfg, stores, plain;
  cfg.functions.push_back({"batch_size", constant});
  cfg.functions.push_back({"helper", helper});
  stores.imports.push_back({"config", "config"});
  stores.module_stores.push_back("config.batch_size");
  plain.imports.push_back({"config", "config"});
  const python::FunctionFacts* summary_constant = &cfg.functions[0].second;
  std::vector<const python::ModuleSummary*> latest{&cfg, &stores};
  std::vector<uint64_t> version{1, 2};
  auto same_as_fresh = [&](const python::FactsTable& t) {
    python::FactsTable fresh(layout, latest);
    for (const char* name : {"batch_size", "helper", "missing"}) {
      INFO(name);
      const python::FunctionFacts* got = t.function(0, name);
      const python::FunctionFacts* want = fresh.function(0, name);
      REQUIRE((got == nullptr) == (want == nullptr));
      if (got) CHECK(got->const_values == want->const_values);
    }
    CHECK(t.resolve(1, "config.batch_size") == fresh.resolve(1, "config.batch_size"));
  };
  auto t1 = std::make_unique<python::FactsTable>(layout, latest, nullptr, &version);
  same_as_fresh(*t1);
  CHECK(t1->function(0, "batch_size")->const_values.empty());
  latest[1] = &plain, version[1] = 3;  // the store is gone: the constant keeps its value
  auto t2 = std::make_unique<python::FactsTable>(layout, latest, t1.get(), &version);
  t1.reset();  // its synthesized facts are freed: t2 must not point at them
  same_as_fresh(*t2);
  CHECK(t2->function(0, "batch_size") == summary_constant);
  REQUIRE(t2->function(0, "batch_size")->const_values.size() == 1);
  latest[1] = &stores, version[1] = 4;  // stored again
  auto t3 = std::make_unique<python::FactsTable>(layout, latest, t2.get(), &version);
  t2.reset();
  same_as_fresh(*t3);
  CHECK(t3->function(0, "batch_size")->const_values.empty());
  auto t4 = std::make_unique<python::FactsTable>(layout, latest, t3.get(), &version);  // nothing changed
  t3.reset();
  same_as_fresh(*t4);
  CHECK(t4->function(0, "batch_size")->const_values.empty());
  CHECK(t4->function(0, "helper") == &cfg.functions[1].second);
}

TEST_CASE("a recorded callee answer covers only the fields asked for: returns_tensor and hot_self_calls apart", "[project]") {
  // main.py reads lib.py's class and its method: a change of `returns_tensor` or of the class's
  // `hot_self_calls` changes only the answers that asked for them, so a module reading only
  // kReturnsCuda / kClass is not analyzed again for it.
  testing::TempDir d;
  testing::write_text(d / "main.py", "from lib import Block\n");
  testing::write_text(d / "lib.py", "class Block: pass\n");
  python::ProjectLayout layout({(d / "main.py").string(), (d / "lib.py").string()});
  python::FunctionFacts klass, call;
  klass.method = call.method = true;
  klass.is_class = true;
  call.returns_cuda = true;
  python::ModuleSummary main, lib1, lib2;
  main.imports.push_back({"Block", "lib.Block"});
  lib1.functions.push_back({"Block", klass});
  lib1.functions.push_back({"Block.__call__", call});
  klass.hot_self_calls = {"step"};
  call.returns_tensor = true;
  lib2.functions.push_back({"Block", klass});
  lib2.functions.push_back({"Block.__call__", call});
  std::vector<const python::ModuleSummary*> latest{&main, &lib1};
  python::FactsTable t1(layout, latest);
  python::ModuleEnv env(t1, layout, 0);
  using namespace python::fact;
  REQUIRE(env.callee("lib.Block", kClass));
  env.callee("lib.Block", kClass | kHotSelfCalls);
  env.callee("lib.Block.__call__", kReturnsCuda);
  env.callee("lib.Block.__call__", kReturnsCuda | kReturnsTensor);
  latest[1] = &lib2;
  python::FactsTable t2(layout, latest);
  python::ModuleEnv fresh(t2, layout, 0);
  std::map<unsigned, bool> changed;  // per fields asked: the answer differs under t2
  for (const auto& [key, entry] : env.queries()) changed[entry.first.fields] = fresh.answer(entry.first) != entry.second;
  CHECK_FALSE(changed.at(kClass));
  CHECK(changed.at(kClass | kHotSelfCalls));
  CHECK_FALSE(changed.at(kReturnsCuda));
  CHECK(changed.at(kReturnsCuda | kReturnsTensor));
}

TEST_CASE("a class's attributes are recorded one attribute at a time", "[project]") {
  // main.py reads what lib.py's Block is (kClass), the type of its attribute `a`
  // (ExternalFacts::class_attr) and whether some attribute may be on CUDA (kAttrsCuda): a class
  // gaining another attribute, or another attribute changing its type, changes none of those
  // answers; `a` changing its type, or an attribute moving to CUDA, changes only the answers
  // that read it. The stores (`self_stores`) are no reader's: kClass leaves them out.
  testing::TempDir d;
  testing::write_text(d / "main.py", "from lib import Block\n");
  testing::write_text(d / "lib.py", "class Block: pass\n");
  python::ProjectLayout layout({(d / "main.py").string(), (d / "lib.py").string()});
  const int tensor = static_cast<int>(python::AbstractType::Kind::Tensor);
  const int cpu = static_cast<int>(python::TypeDevice::Cpu), cuda = static_cast<int>(python::TypeDevice::Cuda);
  auto block = [&](std::vector<python::FunctionFacts::Attr> attrs, std::vector<std::string> stores) {
    python::FunctionFacts k;
    k.method = k.is_class = true;
    k.module_kind = 1;
    k.attrs = std::move(attrs);
    k.self_stores = std::move(stores);
    return k;
  };
  python::ModuleSummary main, lib;
  main.imports.push_back({"Block", "lib.Block"});
  lib.functions.push_back({"Block", block({{"a", tensor, cpu}}, {"a"})});
  std::vector<const python::ModuleSummary*> latest{&main, &lib};
  python::FactsTable t1(layout, latest);
  python::ModuleEnv env(t1, layout, 0);
  using namespace python::fact;
  REQUIRE(env.callee("lib.Block", kClass));
  env.callee("lib.Block", kClass | kAttrsCuda);
  const python::FunctionFacts::Attr* a = env.class_attr("lib.Block", "a");
  REQUIRE(a);
  CHECK(a->device == cpu);
  CHECK_FALSE(env.class_attr("lib.Block", "b"));  // none (yet): recorded as such
  CHECK_FALSE(env.class_attr("torch.nn.Linear", "weight"));  // no project name: nothing recorded
  // Per fields asked ('c') or attribute asked ('t'): whether the answer differs under `after`.
  auto changed = [&](python::FunctionFacts after) {
    python::ModuleSummary lib2;
    lib2.functions.push_back({"Block", std::move(after)});
    std::vector<const python::ModuleSummary*> latest2{&main, &lib2};
    python::FactsTable t2(layout, latest2);
    python::ModuleEnv fresh(t2, layout, 0);
    std::map<std::string, bool> out;
    for (const auto& [key, entry] : env.queries()) out[key] = fresh.answer(entry.first) != entry.second;
    return out;
  };
  const std::string head = "clib.Block#0#" + std::to_string(kClass), attrs_cuda = "clib.Block#0#" + std::to_string(kClass | kAttrsCuda);
  REQUIRE(env.queries().size() == 4);
  auto other_attr = changed(block({{"a", tensor, cpu}, {"c", tensor, cpu}}, {"a", "c", "d"}));
  for (const auto& [key, diff] : other_attr) CHECK_FALSE(diff);
  auto a_moves = changed(block({{"a", tensor, cuda}}, {"a"}));
  CHECK_FALSE(a_moves.at(head));
  CHECK(a_moves.at(attrs_cuda));
  CHECK(a_moves.at("tlib.Block a#0#0"));
  CHECK_FALSE(a_moves.at("tlib.Block b#0#0"));
  auto b_appears = changed(block({{"a", tensor, cpu}, {"b", tensor, cpu}}, {"a"}));
  CHECK_FALSE(b_appears.at(head));
  CHECK_FALSE(b_appears.at(attrs_cuda));
  CHECK_FALSE(b_appears.at("tlib.Block a#0#0"));
  CHECK(b_appears.at("tlib.Block b#0#0"));
  python::FunctionFacts no_module = block({{"a", tensor, cpu}}, {"a"});
  no_module.module_kind = 0;
  auto kind = changed(no_module);
  CHECK(kind.at(head));
  CHECK_FALSE(kind.at("tlib.Block a#0#0"));
}

TEST_CASE("a module analyzed for the first time after round 1 comes first in its round", "[project]") {
  // errors.py names no framework (the prefilter leaves it out of round 1); lib.py's call of its
  // BadBatch reaches it. Round 2 analyzes it in a group of its own before lib.py (callers first
  // would put it last), so lib.py reads its class facts in round 2 and is not analyzed again for
  // them in round 3 (single import levels: STOKER_PROJECT_MIN_LEVEL=1).
  fs::path dir = project_fixtures() / "newcomer_first";
  auto r = testing::run_in(dir, "STOKER_PROJECT_TRACE=1 STOKER_PROJECT_MIN_LEVEL=1 " +
                                    testing::stoker_command("check --no-cache --threads 1 --output-format concise ."));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("lib.py:14:11: SY001"));
  CHECK_THAT(r.err, Catch::Contains("round 1: 2 modules analyzed"));
  CHECK_THAT(r.err, Catch::Contains("round 2: group 0: errors\n"));
  CHECK_THAT(r.err, Catch::Contains("round 2: group 1: lib\n"));
  CHECK_THAT(r.err, !Catch::Contains("round 3: group 0: lib"));
  CHECK_THAT(r.err, !Catch::Contains("lib reads cerrors.BadBatch"));
  // Turned off, the order is callers first: errors.py after lib.py, which reads its facts again.
  auto off = testing::run_in(dir, "STOKER_PROJECT_NEWCOMERS=0 STOKER_PROJECT_TRACE=1 STOKER_PROJECT_MIN_LEVEL=1 " +
                                      testing::stoker_command("check --no-cache --threads 1 --output-format concise ."));
  CHECK(off.out == r.out);
  CHECK_THAT(off.err, Catch::Contains("round 3: group 0: lib"));
}

TEST_CASE("a module's checks run only in its last analysis, with the findings of checks in every analysis", "[project]") {
  // lib.py is analyzed in round 1 before train.py (callees first), then again in round 2 with
  // the facts train.py hands it: its round-1 checks are dropped, its round-2 checks run once the
  // table after round 2 shows it is not analyzed again (STOKER_PROJECT_DEFER=1). Without it the
  // checks run in every analysis, as before: the same report.
  fs::path dir = project_fixtures() / "checks_last_analysis";
  auto r = testing::run_in(dir, "STOKER_PROJECT_DEFER=1 STOKER_PROJECT_TRACE=1 " +
                                    testing::stoker_command("check --no-cache --threads 1 --output-format concise ."));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("lib.py:12:11: SY001"));
  CHECK_THAT(r.err, Catch::Contains("round 1: checks of lib dropped (analyzed again)\n"));
  CHECK_THAT(r.err, Catch::Contains("round 2: checks of lib run\n"));
  CHECK_THAT(r.err, !Catch::Contains("round 1: checks of lib run"));
  auto off = testing::run_in(dir, "STOKER_PROJECT_DEFER=0 STOKER_PROJECT_TRACE=1 " +
                                      testing::stoker_command("check --no-cache --threads 1 --output-format concise ."));
  CHECK(off.out == r.out);
  CHECK_THAT(off.err, !Catch::Contains("checks of lib"));
  auto threads = testing::run_in(dir, "STOKER_PROJECT_DEFER=1 " + testing::stoker_command("check --no-cache --threads 2 --output-format concise ."));
  CHECK(threads.out == r.out);
}

TEST_CASE("a module whose deferred checks read an answer that changed since its model is analyzed again", "[project]") {
  // train.py's model (round 2) resolved loss.py's SplitLoss.logprob before loss.py's round-2
  // summary said it returns CUDA; its checks, run after round 2 with the callee the model resolved,
  // read the old return, and the comparison with the table after round 2 sends train.py to
  // round 3, as when the checks ran with the model: line 19's SY001 is reported.
  fs::path dir = project_fixtures() / "main_block_selftest";
  auto r = testing::run_in(dir, "STOKER_PROJECT_DEFER=1 STOKER_PROJECT_TRACE=1 " +
                                    testing::stoker_command("check --no-cache --threads 1 --output-format concise ."));
  CHECK_THAT(r.out, Catch::Contains("train.py:19:5: SY001"));
  CHECK_THAT(r.err, Catch::Contains("round 2: train's checks read closs.SplitLoss.logprob#0#"));
  CHECK_THAT(r.err, Catch::Contains("round 3: checks of train run\n"));
}

TEST_CASE("round 1 analyzes a package's __init__ first and its re-exports' modules before their readers", "[project]") {
  // pkg/__init__.py imports layers.py and train.py, both of which import the package back: a
  // cycle the depth-first walk cut at the package, so train.py (reading Block through
  // `from pkg import Block`) shared a level with layers.py and read "no such class" in round 1,
  // then was analyzed again. The __init__'s analysis now has nothing before it and its exports
  // (the modules it imports, in source order) come before the modules reading through it.
  fs::path dir = project_fixtures() / "package_exports_first";
  auto r = testing::run_in(dir, "STOKER_PROJECT_TRACE=1 " +
                                    testing::stoker_command("check --no-cache --threads 1 --output-format concise ."));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("train.py:16:15: SY001"));
  CHECK_THAT(r.err, Catch::Contains("round 1: group 0: pkg\n"));
  CHECK_THAT(r.err, Catch::Contains("round 1: group 1: pkg.layers\n"));
  CHECK_THAT(r.err, Catch::Contains("round 1: group 2: pkg.train\n"));
  CHECK_THAT(r.err, !Catch::Contains("pkg.train reads cpkg.Block"));
}

TEST_CASE("a host-return answer changes only where the return is or was a host tensor", "[project]") {
  // TypeInference::host_forward and is_batch_impl read a callee's return type only when it is a
  // tensor (or a container of them) on the CPU: a return going from a tensor on an unresolved
  // device to one on any device (a callee learning that its callers hand it CUDA tensors)
  // re-analyzes none of them, while the whole return type (kReturnType) changes.
  testing::TempDir d;
  testing::write_text(d / "main.py", "from lib import Block\n");
  testing::write_text(d / "lib.py", "class Block: pass\n");
  python::ProjectLayout layout({(d / "main.py").string(), (d / "lib.py").string()});
  const int tensor = static_cast<int>(python::AbstractType::Kind::Tensor);
  const int container = static_cast<int>(python::AbstractType::Kind::HostContainer);
  auto answers = [&](int kind, int device) {
    python::FunctionFacts forward;
    forward.method = true;
    forward.ret_kind = kind;
    forward.ret_device = device;
    python::ModuleSummary main, lib;
    main.imports.push_back({"Block", "lib.Block"});
    lib.functions.push_back({"Block.forward", forward});
    std::vector<const python::ModuleSummary*> latest{&main, &lib};
    python::FactsTable t(layout, latest);
    python::ModuleEnv env(t, layout, 0);
    using namespace python::fact;
    return std::make_pair(python::fp_function(env.callee("lib.Block.forward", kHostReturn), kHostReturn),
                          python::fp_function(env.callee("lib.Block.forward", kReturnType), kReturnType));
  };
  const int unresolved = static_cast<int>(python::TypeDevice::Unresolved), any = static_cast<int>(python::TypeDevice::Any),
            cuda = static_cast<int>(python::TypeDevice::Cuda), cpu = static_cast<int>(python::TypeDevice::Cpu);
  auto wave_before = answers(tensor, unresolved), wave_after = answers(tensor, any);
  CHECK(wave_before.first == wave_after.first);
  CHECK(wave_before.second != wave_after.second);
  CHECK(answers(tensor, cuda).first == wave_before.first);
  // A host tensor, or a container of host tensors (the device's kTensorsFact bit), is read.
  CHECK(answers(tensor, cpu).first != wave_before.first);
  CHECK(answers(container, cpu | stoker::python::type_detail::kTensorsFact).first != wave_before.first);
  CHECK(answers(container, cpu | stoker::python::type_detail::kTensorsFact).first != answers(tensor, cpu).first);
}

TEST_CASE("a return's dependence answer leaves out the parameters its taint follows", "[project]") {
  // returns_follow (the parameters a return's CUDA taint follows where its dependence is not
  // known) is read only by keyed_store_cuda, which asks for kReturnsFollow: the device tracker's
  // kReturnsCuda | kReturnDep readers are not analyzed again when it empties.
  python::FunctionFacts before, after;
  before.method = after.method = true;
  before.returns_cuda = after.returns_cuda = true;
  before.returns_follow.params = {1};
  using namespace python::fact;
  CHECK(python::fp_function(&before, kReturnsCuda | kReturnDep) == python::fp_function(&after, kReturnsCuda | kReturnDep));
  CHECK(python::fp_function(&before, kReturnDep | kReturnsFollow) != python::fp_function(&after, kReturnDep | kReturnsFollow));
}

TEST_CASE("a closure handed to a helper of another module that calls it runs where the helper runs", "[project]") {
  fs::path dir = project_fixtures() / "closure_helper";
  // The real binary on the module with the loop: utils.py's gpu_timer calls its parameter, so
  // train_step runs per step; summary() is only registered (never called there).
  auto r = testing::run_in(dir, testing::stoker_command("check --no-cache --output-format concise train.py"));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("train.py:24:20: SY001"));
  CHECK_THAT(r.out, !Catch::Contains("train.py:28"));
  // Alone, the helper is unknown: its closure is not known to run.
  auto alone = testing::run_in(dir, testing::stoker_command("check --no-cache --no-project --output-format concise train.py"));
  CHECK(alone.rc == 0);
}

TEST_CASE("the imports a module's text names, read without parsing", "[project]") {
  auto names = python::imported_names(
      "import os, sys as system\n"
      "from . import engine\n"
      "from ..utils.misc import (\n    MetricLogger,  # meters\n    SmoothedValue as SV,\n)\n"
      "    from models.vit import *\n"
      "from importlib import import_module\n"
      "x = 'from nowhere import this'  # not at a statement's start\n"
      "import a.b.\\\n    c\n");
  std::vector<std::string> want{"os", "sys", ".", ".engine", "..utils.misc", "..utils.misc.MetricLogger",
                                "..utils.misc.SmoothedValue", "models.vit", "importlib", "importlib.import_module",
                                "a.b.c"};
  CHECK(names == want);
  // Nothing that is not an import statement; truncated text ends the scan.
  CHECK(python::imported_names("from the paper: import nothing\nimportant = 1\nfrom\n").empty());
  CHECK(python::imported_names("from x import (a,").size() == 2);
}

TEST_CASE("directories a module puts on sys.path", "[project]") {
  testing::TempDir d;
  fs::create_directories(d.path / "repo/scripts");
  fs::create_directories(d.path / "repo/vendor/SentEval");
  fs::create_directories(d.path / "repo/lib");
  fs::create_directories(d.path / "repo/scripts/local");
  const std::string script = (d.path / "repo/scripts/run.py").string();
  auto dirs = python::sys_path_dirs(
      script,
      "import os, sys\n"
      "from pathlib import Path\n"
      "PATH_TO_SENTEVAL = './vendor/SentEval'\n"          // relative to the repository root
      "sys.path.insert(0, PATH_TO_SENTEVAL)\n"
      "sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))\n"
      "sys.path.insert(0, str(Path(__file__).resolve().parent / 'local'))\n"
      "sys.path.insert(0, str(Path(__file__).parents[1]))\n"
      "sys.path.append(os.path.join(os.path.dirname(__file__), 'missing'))\n"  // no such directory
      "sys.path.append(some_function())\n"                                    // unknown
      "sys.path.insert(0, f'{root}/x')\n");
  auto canon = [](const fs::path& p) { return p.lexically_normal().string(); };
  std::vector<std::string> want{canon(d.path / "repo/vendor/SentEval"), canon(d.path / "repo/lib"),
                                canon(d.path / "repo/scripts/local"), canon(d.path / "repo")};
  CHECK(dirs == want);
  CHECK(python::sys_path_dirs(script, "import sys\nprint(sys.path)\n").empty());
}

TEST_CASE("round 1 analyzes the modules that import a torch module, not the others", "[project]") {
  fs::path dir = project_fixtures() / "prefilter_import";
  std::vector<std::string> paths;
  std::vector<std::string> texts;
  for (const auto& p : python_files(dir)) {
    paths.push_back(p.string());
    texts.push_back(test::read_file(p));
  }
  std::vector<std::string_view> views(texts.begin(), texts.end());
  auto setup = python::setup_project(paths, views, [&](size_t i) { return texts[i].find("torch") != std::string::npos; });
  std::map<std::string, bool> eligible;
  for (size_t i = 0; i < paths.size(); ++i) eligible[fs::path(paths[i]).filename().string()] = setup.eligible[i];
  CHECK(eligible["segmenter.py"]);
  CHECK(eligible["get_score.py"]);  // imports segmenter
  CHECK_FALSE(eligible["report.py"]);  // imports only textutil
  CHECK_FALSE(eligible["textutil.py"]);
  // Transitively: a script that imports a helper that imports the torch module.
  testing::TempDir d;
  testing::write_text(d.path / "run.py", "import helper\nfor _ in range(3):\n    helper.go()\n");
  testing::write_text(d.path / "helper.py", "from pkg.model import Model\ndef go():\n    Model().fit()\n");
  testing::write_text(d.path / "pkg/__init__.py", "");
  testing::write_text(d.path / "pkg/model.py", "import torch\nclass Model(torch.nn.Module):\n    pass\n");
  testing::write_text(d.path / "other.py", "import json\n");
  // A launcher without a loop adds only call sites: left out.
  testing::write_text(d.path / "launch.py", "import helper\nhelper.go()\n");
  std::vector<std::string> p2;
  std::vector<std::string> t2;
  for (const char* f : {"run.py", "helper.py", "pkg/__init__.py", "pkg/model.py", "other.py", "launch.py"}) {
    p2.push_back((d.path / f).string());
    t2.push_back(test::read_file(d.path / f));
  }
  std::vector<std::string_view> v2(t2.begin(), t2.end());
  auto s2 = python::setup_project(p2, v2, [&](size_t i) { return t2[i].find("torch") != std::string::npos; });
  CHECK(s2.eligible == std::vector<char>{1, 1, 1, 1, 0, 0});
  // helper.py is kept as the relay of run.py's loop; alone (no module with a loop imports it) it is not.
  p2.erase(p2.begin());
  t2.erase(t2.begin());
  std::vector<std::string_view> v3(t2.begin(), t2.end());
  auto s3 = python::setup_project(p2, v3, [&](size_t i) { return t2[i].find("torch") != std::string::npos; });
  CHECK(s3.eligible == std::vector<char>{0, 1, 1, 0, 0});
}

TEST_CASE("a loop statement is found at a line's start", "[project]") {
  CHECK(python::has_loop_statement("x = 1\nfor i in range(3):\n    f(i)\n"));
  CHECK(python::has_loop_statement("def g():\n    while not done():\n        step()\n"));
  CHECK(python::has_loop_statement("async def g():\n    async for b in stream:\n        pass\n"));
  CHECK_FALSE(python::has_loop_statement("ys = [f(x) for x in xs]\nformat = 1\nwhile_x = 2\n"));
  CHECK_FALSE(python::has_loop_statement("# for each image in the folder: run it\nmain()\n"));
  CHECK_FALSE(python::has_loop_statement("for"));
}

TEST_CASE("a src layout's namespace package and a directory put on sys.path name modules", "[project]") {
  fs::path ns = project_fixtures() / "namespace_src";
  std::vector<std::string> paths;
  for (const auto& p : python_files(ns)) paths.push_back(p.string());
  python::ProjectLayout layout(paths);
  int script = -1, utils = -1;
  for (size_t i = 0; i < layout.size(); ++i) {
    if (fs::path(layout.path(i)).filename() == "finetune.py") script = static_cast<int>(i);
    if (fs::path(layout.path(i)).filename() == "train_utils.py") utils = static_cast<int>(i);
  }
  REQUIRE(script >= 0);
  REQUIRE(utils >= 0);
  // src/ is a root: `cookbook` is a namespace package under it.
  CHECK(layout.split(script, "cookbook.utils.train_utils.train") == std::make_pair(utils, std::string("train")));
  CHECK(layout.is_project_name(script, "cookbook.utils"));

  // A directory that no module sits in directly is a root only once a module puts it on sys.path.
  fs::path vendor = project_fixtures() / "sys_path_vendor";
  std::vector<std::string> vp;
  for (const auto& p : python_files(vendor)) vp.push_back(p.string());
  python::ProjectLayout without(vp);
  int from = 0;
  for (size_t i = 0; i < without.size(); ++i)
    if (fs::path(without.path(i)).filename() == "evaluate.py") from = static_cast<int>(i);
  CHECK(without.split(from, "tasks.loop.run_task").first == -1);
  std::vector<std::string_view> texts;
  std::vector<std::string> owned;
  for (const auto& p : vp) owned.push_back(test::read_file(p));
  for (const auto& t : owned) texts.push_back(t);
  auto setup = python::setup_project(vp, texts, [](size_t) { return true; });
  auto [m, rest] = setup.layout.split(from, "tasks.loop.run_task");
  REQUIRE(m >= 0);
  CHECK(fs::path(setup.layout.path(m)).filename() == "loop.py");
  CHECK(rest == "run_task");
}

TEST_CASE("checking one script reads the packages next to it and what it puts on sys.path", "[project]") {
  fs::path dir = project_fixtures() / "sys_path_vendor";
  // The loop over make_batches() (a DataLoader of the vendored module, a namespace package on
  // the directory the script puts on sys.path) is a hot loop only when that module is read.
  auto r = testing::run_in(dir, testing::stoker_command("check --no-cache --output-format concise scripts/evaluate.py"));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("evaluate.py:19:13: TX001"));
  CHECK_THAT(r.out, !Catch::Contains("loop.py"));
  auto alone = testing::run_in(dir, testing::stoker_command("check --no-cache --no-project --output-format concise scripts/evaluate.py"));
  CHECK(alone.rc == 0);
  // `stoker check segmenter.py` reads get_score.py next to it (it names segmenter), which names
  // no framework but imports segmenter: analyzed, its per-image loop makes predict() hot.
  fs::path pre = project_fixtures() / "prefilter_import";
  auto seg = testing::run_in(pre, testing::stoker_command("check --no-cache --output-format concise segmenter.py"));
  CHECK(seg.rc == 1);
  CHECK_THAT(seg.out, Catch::Contains("segmenter.py:26:18: SY001"));
}

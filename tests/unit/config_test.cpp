// Configuration: every key through toml++, errors with file/line/key, discovery (nearest wins),
// --config, per-file-ignores and excludes, and the CLI's handling of all of it.
#include <catch2/catch.hpp>

#include "cli_support.h"
#include "core/config.h"

using namespace stoker;
using namespace stoker::testing;

namespace {

Settings parse(const std::string& name, const std::string& text) {
  auto s = parse_config_text(name, text, Settings{});
  REQUIRE(s.has_value());
  return *s;
}

ConfigError parse_error(const std::string& name, const std::string& text) {
  try {
    parse_config_text(name, text, Settings{});
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a configuration error for:\n" << text);
  throw;
}

}  // namespace

TEST_CASE("every configuration key is read from stoker.toml") {
  Settings s = parse("/proj/stoker.toml", R"toml(
select = ["SY"]
extend-select = ["ST001"]
ignore = ["SY001"]
exclude = ["legacy"]
extend-exclude = ["*_generated.py"]
gpu = "h100-sxm"
min-batch-size = 32
default-workers = 4
report-unused-ignores = true

[per-file-ignores]
"tests/**" = ["SY001", "ST"]

[workload]
step-time-ms = 120.5
load-time-ms = 40
batch-bytes = 1048576
workers = 6

[cxx]
compile-commands = "build"
extra-args = ["-DNDEBUG", "-std=c++17"]
cuda-path = "/usr/local/cuda"
)toml");
  CHECK(s.rules.select == std::vector<std::string>{"SY"});
  CHECK(s.rules.extend_select == std::vector<std::string>{"ST001"});
  CHECK(s.rules.ignore == std::vector<std::string>{"SY001"});
  CHECK(s.exclude == std::vector<std::string>{"legacy"});
  CHECK(s.extend_exclude == std::vector<std::string>{"*_generated.py"});
  CHECK(s.gpu == "h100-sxm");
  CHECK(s.min_batch_size == 32);
  CHECK(s.default_workers == "4");
  CHECK(s.report_unused_ignores);
  REQUIRE(s.per_file_ignores.size() == 1);
  CHECK(s.per_file_ignores[0].first == "tests/**");
  CHECK(s.per_file_ignores[0].second == std::vector<std::string>{"SY001", "ST"});
  CHECK(s.workload.step_time_ms == Approx(120.5));
  CHECK(s.workload.load_time_ms == Approx(40));
  CHECK(s.workload.batch_bytes == Approx(1048576));
  CHECK(s.workload.workers == 6);
  CHECK(s.compile_commands_dir == "/proj/build");  // relative to the configuration's directory
  CHECK(s.cxx_extra_args == std::vector<std::string>{"-DNDEBUG", "-std=c++17"});
  CHECK(s.cuda_path == "/usr/local/cuda");
  CHECK(s.config_file == "/proj/stoker.toml");
  CHECK(s.config_root == "/proj");
}

TEST_CASE("pyproject.toml is read from [tool.stoker] and skipped without it") {
  Settings s = parse("/p/pyproject.toml", R"toml(
[project]
name = "demo"

[tool.ruff]
select = ["E"]

[tool.stoker]
ignore = ["SY"]
default-workers = "os.cpu_count()"

[tool.stoker.workload]
workers = 2
)toml");
  CHECK(s.rules.ignore == std::vector<std::string>{"SY"});
  CHECK(s.default_workers == "os.cpu_count()");
  CHECK(s.workload.workers == 2);
  CHECK_FALSE(parse_config_text("/p/pyproject.toml", "[project]\nname = \"x\"\n", Settings{}).has_value());
  // Keys a file does not set keep the values of the base settings.
  Settings base;
  base.min_batch_size = 99;
  auto t = parse_config_text("/p/stoker.toml", "gpu = \"l4\"\n", base);
  REQUIRE(t);
  CHECK(t->min_batch_size == 99);
  CHECK(t->gpu == "l4");
}

TEST_CASE("configuration errors name the file, line, column and key") {
  SECTION("unknown key, with a suggestion") {
    auto e = parse_error("/p/pyproject.toml", "[tool.stoker]\nselect = [\"SY\"]\nselct = [\"SY\"]\n");
    CHECK(e.line == 3);
    CHECK(e.column == 1);
    CHECK(e.key == "tool.stoker.selct");
    CHECK(e.describe() == "/p/pyproject.toml:3:1: `tool.stoker.selct`: unknown key (did you mean `select`?)");
  }
  SECTION("wrong type") {
    auto e = parse_error("stoker.toml", "gpu = \"l4\"\nmin-batch-size = \"16\"\n");
    CHECK(e.line == 2);
    CHECK(e.key == "min-batch-size");
    CHECK(std::string(e.what()) == "expected an integer, found a string");
  }
  SECTION("wrong element type inside an array, reported at the element") {
    auto e = parse_error("stoker.toml", "ignore = [\n  \"SY001\",\n  3,\n]\n");
    CHECK(e.line == 3);
    CHECK(e.column == 3);
    CHECK(std::string(e.what()).find("array of strings") != std::string::npos);
  }
  SECTION("unknown rule code") {
    auto e = parse_error("stoker.toml", "select = [\"SY\", \"XX999\"]\n");
    CHECK(e.line == 1);
    CHECK(e.column == 17);
    CHECK(e.key == "select");
    CHECK(std::string(e.what()).find("unknown rule code or prefix `XX999`") != std::string::npos);
  }
  SECTION("unknown code in per-file-ignores") {
    auto e = parse_error("stoker.toml", "[per-file-ignores]\n\"a.py\" = [\"NOPE1\"]\n");
    CHECK(e.line == 2);
    CHECK(e.key == "per-file-ignores.a.py");
  }
  SECTION("unknown GPU profile") {
    auto e = parse_error("stoker.toml", "\n\ngpu = \"h1000\"\n");
    CHECK(e.line == 3);
    CHECK(std::string(e.what()).find("unknown GPU profile `h1000`") != std::string::npos);
  }
  SECTION("unknown key in a sub-table") {
    auto e = parse_error("/p/pyproject.toml", "[tool.stoker.workload]\nstep-time = 3\n");
    CHECK(e.line == 2);
    CHECK(e.key == "tool.stoker.workload.step-time");
    CHECK(std::string(e.what()).find("did you mean `step-time-ms`") != std::string::npos);
  }
  SECTION("out-of-range values") {
    CHECK(parse_error("stoker.toml", "min-batch-size = 0\n").key == "min-batch-size");
    CHECK(parse_error("stoker.toml", "[workload]\nstep-time-ms = -1\n").line == 2);
    CHECK(parse_error("stoker.toml", "report-unused-ignores = 1\n").key == "report-unused-ignores");
    CHECK(parse_error("stoker.toml", "workload = 3\n").key == "workload");
    CHECK(parse_error("/p/pyproject.toml", "[tool]\nstoker = 1\n").key == "tool.stoker");
  }
  SECTION("invalid TOML") {
    auto e = parse_error("stoker.toml", "select = [\"SY\"\nignore = 1\n");
    CHECK(e.line >= 1);
    CHECK(std::string(e.what()).rfind("invalid TOML", 0) == 0);
  }
  SECTION("invalid TOML that breaks the parser's own expectations") {
    // toml++ 3.3 enters its key parser on the line break; its check now throws (toml_guard.h).
    for (const char* text : {"[\n[", "[\n", "[[\n]]\n"}) {
      auto e = parse_error("stoker.toml", text);
      CHECK(std::string(e.what()).rfind("invalid TOML", 0) == 0);
    }
  }
}

// toml++ 3.3 hits __builtin_unreachable() on some non-ASCII code points where it tests for
// whitespace (the sanitizer build aborts on these); the text must parse as TOML says and every
// string come back as written, the private-use code points that stand in for them included.
TEST_CASE("non-ASCII text in comments, keys and strings reads back as written") {
  const std::string glob = "donn\xc3\xa9" "es/\xe3\x80\x81\xef\xbb\xbc\xf3\xb0\x80\x80/*.py";
  Settings s = parse("/p/pyproject.toml", "# caf\xc3\xa9 \xd0\x96 \xef\xbb\xbc\n[tool.stoker]  # \xc3\xa9t\xc3\xa9\n"
                                          "exclude = [\"\xc3\xa9\", \"\xf3\xb0\x80\x80\"]  # \xe2\xb1\x9e\n"
                                          "[tool.stoker.per-file-ignores]\n\"" + glob + "\" = [\"SY001\"]\n");
  CHECK(s.exclude == std::vector<std::string>{"\xc3\xa9", "\xf3\xb0\x80\x80"});
  REQUIRE(s.per_file_ignores.size() == 1);
  CHECK(s.per_file_ignores[0].first == glob);
  // After a value and after a line-ending backslash in a multi-line string.
  CHECK_THROWS_AS(parse_config_text("stoker.toml", "min-batch-size = 1\xc3\xa9\n", Settings{}), ConfigError);
  Settings m = parse("stoker.toml", "exclude = [\"\"\"a\\\n   \xc3\xa9" "b\"\"\"]\n");
  CHECK(m.exclude == std::vector<std::string>{"a\xc3\xa9" "b"});
  // Lines and columns count code points as before.
  auto e = parse_error("stoker.toml", "# \xc3\xa9\n\"\xc3\xa9\xc3\xa9\" = 1\n");
  CHECK(e.line == 2);
  CHECK(e.column == 1);
  CHECK(e.key == "\xc3\xa9\xc3\xa9");
  // Private code points in comments and after values, beside unsafe ones: a fixed swap turned
  // U+F0000 into U+00A1 there (a fuzzer's find). Escaped private code points read back as well.
  Settings p = parse("stoker.toml", "# \xf3\xb0\x80\x80 \xc3\xa9 \xf4\x80\x80\x80\n"
                                    "exclude = [\"\\U000F0000\", \"\xc3\xa9\xf3\xb0\x80\x81\"]  # \xf3\xb0\x80\x82\n");
  CHECK(p.exclude == std::vector<std::string>{"\xf3\xb0\x80\x80", "\xc3\xa9\xf3\xb0\x80\x81"});
  CHECK_THROWS_AS(parse_config_text("stoker.toml", "min-batch-size = 1\xf3\xb0\x80\x80\n# \xc3\xa9\n", Settings{}),
                  ConfigError);
}

TEST_CASE("globs: components, ** and directory prefixes") {
  CHECK(glob_match("*.py", "a/b/c.py"));
  CHECK(glob_match("legacy", "src/legacy/x.py"));
  CHECK_FALSE(glob_match("legacy", "src/legacy_x.py"));
  CHECK(glob_match("tests/*", "tests/a.py"));
  CHECK_FALSE(glob_match("tests/*.py", "src/tests/a.py"));
  CHECK(glob_match("tests/**/*.py", "tests/a/b/c.py"));
  CHECK(glob_match("tests/**/*.py", "tests/c.py"));
  CHECK(glob_match("**/gen_*.py", "x/y/gen_a.py"));
  CHECK(glob_match("src/vendored", "src/vendored/deep/file.cu"));
  CHECK(glob_match("data_[0-9].py", "data_7.py"));
  CHECK_FALSE(glob_match("data_[!0-9].py", "data_7.py"));
  CHECK(glob_match("?.py", "a.py"));
  CHECK_FALSE(glob_match("?.py", "ab.py"));
  CHECK(glob_match("./scripts/*.py", "scripts/run.py"));
}

TEST_CASE("discovery: nearest configuration wins, --config overrides, per-file-ignores") {
  TempDir d;
  write_text(d / "pyproject.toml", "[tool.stoker]\nmin-batch-size = 8\n[tool.stoker.per-file-ignores]\n\"tests/*\" = [\"SY001\"]\n");
  write_text(d / "pkg/stoker.toml", "min-batch-size = 64\n");
  write_text(d / "pkg/sub/.stoker.toml", "min-batch-size = 128\n");
  write_text(d / "pkg/sub/stoker.toml", "min-batch-size = 256\n");  // .stoker.toml is preferred
  write_text(d / "other/pyproject.toml", "[project]\nname = \"no stoker table\"\n");
  write_text(d / "custom.toml", "min-batch-size = 3\n");

  ConfigResolver r(std::nullopt, {});
  CHECK(r.settings_for((d / "a.py").string()).min_batch_size == 8);
  CHECK(r.settings_for((d / "pkg/a.py").string()).min_batch_size == 64);
  CHECK(r.settings_for((d / "pkg/deep/er/a.py").string()).min_batch_size == 64);
  CHECK(r.settings_for((d / "pkg/sub/a.py").string()).min_batch_size == 128);
  // A pyproject.toml without [tool.stoker] does not stop the search.
  CHECK(r.settings_for((d / "other/a.py").string()).min_batch_size == 8);
  CHECK(r.config_file_for((d / "other/a.py").string()) == (d / "pyproject.toml").string());
  // Nearest wins entirely: pkg/stoker.toml does not inherit the root's per-file-ignores.
  Settings t = r.settings_for((d / "tests/t.py").string());
  CHECK_FALSE(t.rules.enabled("SY001"));
  CHECK(r.settings_for((d / "a.py").string()).rules.enabled("SY001"));
  CHECK(r.errors().empty());

  ConfigResolver forced((d / "custom.toml").string(), {});
  CHECK(forced.settings_for((d / "pkg/sub/a.py").string()).min_batch_size == 3);

  CliOverrides o;
  o.select = std::vector<std::string>{"SY"};
  o.ignore = {"SY001"};
  o.report_unused_ignores = true;
  ConfigResolver with_cli(std::nullopt, o);
  Settings c = with_cli.settings_for((d / "pkg/a.py").string());
  CHECK(c.rules.select == std::vector<std::string>{"SY"});
  CHECK_FALSE(c.rules.enabled("SY001"));
  CHECK(c.report_unused_ignores);
}

TEST_CASE("excludes are relative to the configuration's directory") {
  TempDir d;
  write_text(d / "stoker.toml", "exclude = [\"third_party\"]\nextend-exclude = [\"gen/*.py\"]\n");
  ConfigResolver r(std::nullopt, {});
  CHECK(r.excluded((d / "third_party").string()));
  CHECK(r.excluded((d / "src/third_party/x.py").string()));
  CHECK(r.excluded((d / "gen/a.py").string()));
  CHECK_FALSE(r.excluded((d / "src/gen/a.py").string()));
  CHECK_FALSE(r.excluded((d / "src/a.py").string()));
}

TEST_CASE("a broken configuration is recorded, not thrown, by the resolver") {
  TempDir d;
  write_text(d / "stoker.toml", "ignore = [\"SY001\"]\nbogus = 1\n");
  ConfigResolver r(std::nullopt, {});
  r.settings_for((d / "a.py").string());
  auto errors = r.errors();
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].line == 2);
  CHECK(errors[0].key == "bogus");
}

TEST_CASE("CLI: configuration errors exit 2 with file, line and key") {
  TempDir d;
  write_text(d / "pyproject.toml", "[tool.stoker]\nignore = [\"SY001\"]\nmin-batch-size = \"big\"\n");
  write_text(d / "train.py", "import torch\n");
  auto r = run_in(d.path, stoker_command("check train.py"));
  CHECK(r.rc == 2);
  CHECK(r.err.find("pyproject.toml:3:18: `tool.stoker.min-batch-size`: expected an integer, found a string") !=
        std::string::npos);
  CHECK(r.out.empty());

  write_text(d / "pyproject.toml", "[tool.stoker]\nselect = [\"QQ1\"]\n");
  r = run_in(d.path, stoker_command("check --output-format sarif ."));
  CHECK(r.rc == 2);
  CHECK(r.err.find("pyproject.toml:2:11: `tool.stoker.select`: unknown rule code or prefix `QQ1`") != std::string::npos);
  CHECK(r.out.empty());  // no half-written machine output
}

TEST_CASE("CLI: config --show prints the effective configuration as TOML") {
  TempDir d;
  write_text(d / "pyproject.toml",
             "[tool.stoker]\ngpu = \"a100-sxm\"\nmin-batch-size = 24\n[tool.stoker.per-file-ignores]\n\"tests/*\" = [\"SY001\"]\n");
  write_text(d / "override.toml", "gpu = \"l4\"\n");
  auto r = run_in(d.path, stoker_command("config --show tests/test_a.py"));
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("# From: " + (d / "pyproject.toml").string()) != std::string::npos);
  CHECK(r.out.find("gpu = 'a100-sxm'") != std::string::npos);
  CHECK(r.out.find("min-batch-size = 24") != std::string::npos);
  CHECK(r.out.find("ignore = [ 'SY001' ]") != std::string::npos);  // the per-file ignore applies here
  // The output is itself a valid stoker.toml.
  write_text(d / "shown/stoker.toml", r.out);
  auto again = parse_config_text((d / "shown/stoker.toml").string(), r.out, Settings{});
  REQUIRE(again);
  CHECK(again->gpu == "a100-sxm");
  CHECK(again->min_batch_size == 24);

  r = run_in(d.path, stoker_command("config --show --config override.toml a.py"));
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("gpu = 'l4'") != std::string::npos);
  CHECK(r.out.find("min-batch-size = 16") != std::string::npos);

  write_text(d / "pyproject.toml", "[tool.stoker]\ngpu = 3\n");
  r = run_in(d.path, stoker_command("config --show"));
  CHECK(r.rc == 2);
  CHECK(r.err.find("pyproject.toml:2:7: `tool.stoker.gpu`: expected a string, found an integer") != std::string::npos);
}

TEST_CASE("CLI: excludes prune discovery, --force-exclude applies them to named files") {
  TempDir d;
  write_text(d / "stoker.toml", "extend-exclude = [\"skipme\"]\nreport-unused-ignores = true\n");
  std::string stale = "import torch\nx = 1  # stoker: ignore[SY001]\n";
  write_text(d / "keep/a.py", stale);
  write_text(d / "skipme/b.py", stale);
  auto r = run_in(d.path, stoker_command("check --output-format concise --no-color ."));
  CHECK(r.rc == 1);
  CHECK(r.out.find("keep/a.py:2:10: ST001") != std::string::npos);
  CHECK(r.out.find("skipme") == std::string::npos);
  r = run_in(d.path, stoker_command("check --output-format concise skipme/b.py"));
  CHECK(r.rc == 1);  // named explicitly: analyzed
  r = run_in(d.path, stoker_command("check --output-format concise --force-exclude skipme/b.py"));
  CHECK(r.rc == 0);
}

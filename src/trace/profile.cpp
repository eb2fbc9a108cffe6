// GPU busy and idle per step, and the host events the idle time is attributed to (profile.h).
#include "trace/profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

namespace stoker::trace {

double Profile::total_us() const {
  double s = 0;
  for (const auto& st : steps) s += st.dur_us;
  return s;
}

double Profile::busy_us() const {
  double s = 0;
  for (const auto& st : steps) s += st.busy_us;
  return s;
}

namespace {

// Sorted, disjoint intervals.
using Segments = std::vector<Interval>;

Segments merge(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  Segments out;
  for (const auto& i : v) {
    if (i.end <= i.start) continue;
    if (!out.empty() && i.start <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}

// The parts of [s, e] that `busy` does not cover.
Segments complement(const Segments& busy, double s, double e, double& busy_us) {
  Segments idle;
  busy_us = 0;
  auto it = std::lower_bound(busy.begin(), busy.end(), s, [](const Interval& i, double v) { return i.end < v; });
  double cursor = s;
  for (; it != busy.end() && it->start < e; ++it) {
    double a = std::max(it->start, s), b = std::min(it->end, e);
    if (b <= a) continue;
    busy_us += b - a;
    if (a > cursor) idle.push_back({cursor, a});
    cursor = std::max(cursor, b);
  }
  if (cursor < e) idle.push_back({cursor, e});
  return idle;
}

// Removes [a, b] from `idle` and returns how much of it was there; the pieces removed go to
// `pieces` when given.
double take(Segments& idle, double a, double b, Segments* pieces = nullptr) {
  if (b <= a || idle.empty()) return 0;
  double taken = 0;
  Segments out;
  out.reserve(idle.size() + 1);
  for (const auto& seg : idle) {
    if (seg.end <= a || seg.start >= b) {
      out.push_back(seg);
      continue;
    }
    double x = std::max(seg.start, a), y = std::min(seg.end, b);
    taken += y - x;
    if (pieces) pieces->push_back({x, y});
    if (seg.start < x) out.push_back({seg.start, x});
    if (y < seg.end) out.push_back({y, seg.end});
  }
  idle.swap(out);
  return taken;
}

std::vector<Step> find_steps(const Trace& t, std::string& source) {
  std::vector<Step> steps = t.steps;
  if (!steps.empty()) {
    source = "ProfilerStep";
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.start < b.start; });
    // The same window recorded twice (several threads) counts once.
    steps.erase(std::unique(steps.begin(), steps.end(),
                            [](const Step& a, const Step& b) { return a.name == b.name && a.start == b.start; }),
                steps.end());
    return steps;
  }
  for (HostKind k : {HostKind::Loader, HostKind::Optimizer}) {
    std::vector<double> starts;
    std::string name;
    for (const auto& e : t.host)
      if (e.kind == k && (k != HostKind::Optimizer || t.names[e.name].rfind("Optimizer.step#", 0) == 0)) {
        starts.push_back(e.start);
        if (name.empty()) name = t.names[e.name];
      }
    std::sort(starts.begin(), starts.end());
    if (starts.size() < 2) continue;
    source = k == HostKind::Loader ? "DataLoader" : "Optimizer.step";
    for (size_t i = 0; i + 1 < starts.size(); ++i)
      steps.push_back({"iteration " + std::to_string(i + 1), starts[i], starts[i + 1]});
    return steps;
  }
  double lo = 0, hi = 0;
  bool any = false;
  auto see = [&](double a, double b) {
    if (!any) lo = a, hi = b, any = true;
    lo = std::min(lo, a), hi = std::max(hi, b);
  };
  for (const auto& e : t.host) see(e.start, e.end);
  for (const auto& g : t.gpu) see(g.start, g.end);
  if (any && hi > lo) {
    source = "trace";
    steps.push_back({"whole trace", lo, hi});
  }
  return steps;
}

}  // namespace

Profile measure(const Trace& t) {
  Profile p;
  p.path = t.path;
  p.events = t.events;
  p.stacks = t.stacks;
  p.has_gpu = !t.gpu.empty();
  for (const auto& e : t.host)
    if (e.stack >= 0 && !t.stacks[e.stack].empty()) p.has_stacks = true;
  const Segments busy = merge(t.gpu);
  std::vector<Step> steps = find_steps(t, p.step_source);

  // Host events by start, and the longest one (to find those overlapping a window).
  std::vector<size_t> order(t.host.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const HostEvent &x = t.host[a], &y = t.host[b];
    // Outer before inner; on equal ends (whole-microsecond clocks) the one recorded first, the caller.
    if (x.start != y.start) return x.start < y.start;
    return x.end != y.end ? x.end > y.end : a < b;
  });
  double longest = 0;
  for (const auto& e : t.host) longest = std::max(longest, e.end - e.start);

  // The representative step (Profile::timeline): median duration.
  size_t median = 0;
  if (!steps.empty()) {
    std::vector<size_t> by_dur(steps.size());
    for (size_t i = 0; i < by_dur.size(); ++i) by_dur[i] = i;
    std::stable_sort(by_dur.begin(), by_dur.end(), [&](size_t a, size_t b) {
      return steps[a].end - steps[a].start < steps[b].end - steps[b].start;
    });
    median = by_dur[(by_dur.size() - 1) / 2];
  }
  std::map<std::tuple<int, int32_t, uint32_t>, size_t> cause_index, other_index;
  for (size_t si = 0; si < steps.size(); ++si) {
    const Step& st = steps[si];
    StepMeasure m{st.name, st.start, st.end - st.start, 0};
    Segments idle = complement(busy, st.start, st.end, m.busy_us);
    p.steps.push_back(m);
    Timeline* tl = si == median ? &p.timeline : nullptr;
    Segments pieces;
    if (tl) {
      tl->step = st.name;
      tl->index = si;
      tl->dur_us = m.dur_us;
      tl->busy_us = m.busy_us;
      auto it = std::lower_bound(busy.begin(), busy.end(), st.start, [](const Interval& i, double v) { return i.end < v; });
      for (; it != busy.end() && it->start < st.end; ++it) {
        double a = std::max(it->start, st.start), b = std::min(it->end, st.end);
        if (b > a) tl->busy.push_back({a - st.start, b - st.start});
      }
    }
    // The host events overlapping the window, by kind.
    std::vector<size_t> in_step[kHostKinds];
    auto first = std::lower_bound(order.begin(), order.end(), st.start - longest,
                                  [&](size_t i, double v) { return t.host[i].start < v; });
    for (auto it = first; it != order.end() && t.host[*it].start < st.end; ++it) {
      const HostEvent& e = t.host[*it];
      if (e.end > st.start) in_step[static_cast<int>(e.kind)].push_back(*it);
    }
    // Per thread, the events kept so far: one that starts inside a kept event of the same or a
    // more specific kind is part of it (aten::_local_scalar_dense in aten::item, the
    // cudaStreamSynchronize in it) and is not counted again. On one thread calls nest, so an
    // end past the outer event's end is the clock's rounding (the autograd profiler's). That
    // profiler also floors both ends to whole microseconds: a call made in the outer event's last
    // microsecond starts at its end, with no length left ([5, 5] in [3, 5]), and is inside it too.
    // Without Kineto (torch 1.13's fallback) it floors the start and the duration apart, so an
    // event's written end can fall up to a microsecond short of its real one: a call in that last
    // microsecond is written past its caller's end ([5, 5] after [3, 4]; [4, 5] after [3, 4]). On
    // a clock of whole microseconds, what lies within the microsecond after the caller's end is
    // inside it.
    auto whole = [](double us) { return us == std::floor(us); };
    auto inside = [&](const Interval& o, const HostEvent& e) {
      if (o.start > e.start) return false;
      if (e.start < o.end || (e.start == o.end && e.end == o.end)) return true;
      return whole(o.end) && whole(e.start) && whole(e.end) && e.end <= o.end + 1;
    };
    std::map<uint32_t, Segments> kept;
    for (int k = 0; k < kHostKinds - 1; ++k) {
      for (size_t i : in_step[k]) {
        const HostEvent& e = t.host[i];
        Segments& mine = kept[e.thread];
        if (std::any_of(mine.begin(), mine.end(), [&](const Interval& o) { return inside(o, e); })) continue;
        mine.push_back({e.start, e.end});
        double a = std::max(e.start, st.start), b = std::min(e.end, st.end);
        auto key = std::make_tuple(k, e.stack, e.name);
        auto [ci, added] = cause_index.emplace(key, p.causes.size());
        if (added) p.causes.push_back({e.kind, t.names[e.name], e.stack, 0, 0, 0});
        Cause& c = p.causes[ci->second];
        c.host_us += std::max(0.0, b - a);
        pieces.clear();
        c.idle_us += take(idle, a, b, tl ? &pieces : nullptr);
        ++c.events;
        for (const auto& piece : pieces) tl->idle.push_back({piece.start - st.start, piece.end - st.start, k, t.names[e.name]});
      }
    }
    // What is left: name the host op running then, the innermost op covering most of the gap
    // (`aten::convolution_backward` rather than the `## backward ##` annotation around it).
    const auto& others = in_step[static_cast<int>(HostKind::Other)];
    double other_longest = 0;
    for (size_t i : others) other_longest = std::max(other_longest, t.host[i].end - t.host[i].start);
    for (const auto& seg : idle) {
      auto from = std::lower_bound(others.begin(), others.end(), seg.start - other_longest,
                                   [&](size_t i, double v) { return t.host[i].start < v; });
      const double len = seg.end - seg.start;
      const HostEvent* best = nullptr;
      double best_overlap = 0;
      bool best_covers = false;
      for (auto it = from; it != others.end() && t.host[*it].start < seg.end; ++it) {
        const HostEvent& e = t.host[*it];
        double ov = std::min(e.end, seg.end) - std::max(e.start, seg.start);
        if (ov <= 0) continue;
        bool covers = ov >= 0.5 * len;
        bool better = !best || (covers && !best_covers) ||
                      (covers == best_covers && (covers ? e.end - e.start < best->end - best->start : ov > best_overlap));
        if (better) best = &e, best_overlap = ov, best_covers = covers;
      }
      if (!best) {
        p.unattributed_idle_us += len;
        if (tl) tl->idle.push_back({seg.start - st.start, seg.end - st.start, kHostKinds, ""});
        continue;
      }
      if (tl) {
        // The part the event covers is its; the rest of the gap had no host op.
        double x = std::max(best->start, seg.start), y = std::min(best->end, seg.end);
        if (x > seg.start) tl->idle.push_back({seg.start - st.start, x - st.start, kHostKinds, ""});
        tl->idle.push_back({x - st.start, y - st.start, static_cast<int>(HostKind::Other), t.names[best->name]});
        if (y < seg.end) tl->idle.push_back({y - st.start, seg.end - st.start, kHostKinds, ""});
      }
      auto key = std::make_tuple(static_cast<int>(HostKind::Other), -1, best->name);
      auto [oi, added] = other_index.emplace(key, p.others.size());
      if (added) p.others.push_back({HostKind::Other, t.names[best->name], -1, 0, 0, 0});
      p.others[oi->second].idle_us += best_overlap;
      p.others[oi->second].host_us += best_overlap;
      ++p.others[oi->second].events;
      p.unattributed_idle_us += len - best_overlap;
    }
  }
  std::sort(p.timeline.idle.begin(), p.timeline.idle.end(),
            [](const TimelinePiece& a, const TimelinePiece& b) { return a.start < b.start; });
  auto by_idle = [](const Cause& a, const Cause& b) {
    return a.idle_us != b.idle_us ? a.idle_us > b.idle_us : a.host_us > b.host_us;
  };
  std::stable_sort(p.causes.begin(), p.causes.end(), by_idle);
  std::stable_sort(p.others.begin(), p.others.end(), by_idle);
  return p;
}

std::string frame_text(const Frame& f) { return f.file + "(" + std::to_string(f.line) + "): " + f.function; }

std::string profile_json(const Profile& p) {
  using nlohmann::json;
  const double n = p.steps.empty() ? 1 : static_cast<double>(p.steps.size());
  const double total = p.total_us();
  auto frac = [&](double us) { return total > 0 ? us / total : 0.0; };
  json j;
  j["trace"] = p.path;
  j["events"] = p.events;
  j["step_source"] = p.step_source;
  j["gpu_events"] = p.has_gpu;
  j["python_stacks"] = p.has_stacks;
  j["mean_step_ms"] = p.mean_step_ms();
  j["gpu_busy_fraction"] = p.has_gpu ? json(p.busy_fraction()) : json(nullptr);
  json steps = json::array();
  for (const auto& s : p.steps)
    steps.push_back({{"name", s.name},
                     {"start_us", s.start_us},
                     {"duration_ms", s.dur_us / 1000},
                     {"busy_ms", s.busy_us / 1000},
                     {"idle_ms", (s.dur_us - s.busy_us) / 1000}});
  j["steps"] = steps;
  auto causes = [&](const std::vector<Cause>& list) {
    json a = json::array();
    for (const auto& c : list) {
      json item = {{"kind", to_string(c.kind)},
                   {"name", c.name},
                   {"events", c.events},
                   {"host_ms_per_step", c.host_us / n / 1000},
                   {"idle_ms_per_step", c.idle_us / n / 1000},
                   {"idle_fraction", frac(c.idle_us)}};
      if (c.stack >= 0) {
        json frames = json::array();
        for (const auto& f : p.stacks[c.stack]) frames.push_back(frame_text(f));
        item["stack"] = frames;
      }
      a.push_back(item);
    }
    return a;
  };
  j["idle_attribution"] = causes(p.causes);
  j["idle_while"] = causes(p.others);
  j["idle_without_host_op_ms_per_step"] = p.unattributed_idle_us / n / 1000;
  if (!p.steps.empty()) {
    const Timeline& t = p.timeline;
    json busy = json::array(), idle = json::array();
    for (const auto& b : t.busy) busy.push_back({b.start, b.end});
    for (const auto& i : t.idle)
      idle.push_back({{"start_us", i.start},
                      {"end_us", i.end},
                      {"kind", i.kind < kHostKinds ? json(to_string(static_cast<HostKind>(i.kind))) : json("none")},
                      {"name", i.name}});
    j["timeline"] = {{"step", t.step}, {"index", t.index},     {"duration_ms", t.dur_us / 1000},
                     {"busy_ms", t.busy_us / 1000}, {"busy_us", busy}, {"idle", idle}};
  }
  return j.dump(2);
}

std::string profile_text(const Profile& p) {
  std::string out;
  char buf[512];
  const double n = p.steps.empty() ? 1 : static_cast<double>(p.steps.size());
  const double total = p.total_us();
  if (p.steps.empty()) return p.path + ": no steps and no events to measure\n";
  std::snprintf(buf, sizeof buf, "%s: %zu step%s (%s), %.2f ms per step", p.path.c_str(), p.steps.size(),
                p.steps.size() == 1 ? "" : "s", p.step_source.c_str(), p.mean_step_ms());
  out += buf;
  if (p.has_gpu) {
    std::snprintf(buf, sizeof buf, ", GPU busy %.1f%%, idle %.1f%%\n", 100 * p.busy_fraction(),
                  100 * (1 - p.busy_fraction()));
    out += buf;
  } else {
    out += "; no GPU events in the trace (host times only)\n";
  }
  for (const auto& s : p.steps) {
    if (p.has_gpu)
      std::snprintf(buf, sizeof buf, "  %-24s %9.2f ms, GPU busy %9.2f ms\n", s.name.c_str(), s.dur_us / 1000,
                    s.busy_us / 1000);
    else
      std::snprintf(buf, sizeof buf, "  %-24s %9.2f ms\n", s.name.c_str(), s.dur_us / 1000);
    out += buf;
  }
  for (const auto* list : {&p.causes, &p.others})
    for (const auto& c : *list) {
      if (c.idle_us <= 0 && list == &p.others) continue;
      if (p.has_gpu)
        std::snprintf(buf, sizeof buf, "  %-13s %8.2f ms per step on the host, GPU idle %.2f ms (%.1f%% of the step): %s\n",
                      to_string(c.kind), c.host_us / n / 1000, c.idle_us / n / 1000,
                      total > 0 ? 100 * c.idle_us / total : 0.0, c.name.c_str());
      else
        std::snprintf(buf, sizeof buf, "  %-13s %8.2f ms per step on the host (%.1f%% of the step): %s\n",
                      to_string(c.kind), c.host_us / n / 1000, total > 0 ? 100 * c.host_us / total : 0.0,
                      c.name.c_str());
      out += buf;
    }
  if (p.has_gpu && p.unattributed_idle_us > 0) {
    std::snprintf(buf, sizeof buf, "  GPU idle %.2f ms per step (%.1f%%) with no host op recorded\n",
                  p.unattributed_idle_us / n / 1000, total > 0 ? 100 * p.unattributed_idle_us / total : 0.0);
    out += buf;
  }
  return out;
}

}  // namespace stoker::trace

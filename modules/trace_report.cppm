// linpipe:trace_report — reading a trace (linpipe:trace) on the host: Chrome/Perfetto
// trace-event JSON (one track per CTA, warp, pipeline and role; waits as slices, held stages as
// async spans) and a per-role summary (time waiting vs working, the longest stall).
module;
#include "linpipe_macros.h"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
export module linpipe:trace_report;
import :barrier_roles;
import :trace;

export namespace linpipe {

// One event as read back: TraceRecord with its clock ticks mapped to nanoseconds.
struct TimedTraceEvent {
  std::uint64_t ns;
  std::uint32_t lap;
  TraceEvent event;
  std::uint8_t stage;
  Role role;
  std::uint8_t pipeline;
};

// A slice as read back: its header and its stored events (at most capacity of them).
struct TraceSlice {
  TraceSliceHeader header;
  std::vector<TimedTraceEvent> events;
};

// Every slice of a trace buffer, in order (an unused one has capacity 0 and no events), its
// events in time order: the records, and a release for each recorded acquire whose stage wrote
// its release time. Ticks become nanoseconds through the anchors: one rate for the whole trace
// (every SM runs the same clock), from the slice whose anchors lie furthest apart, and each
// slice's own first anchor as its origin; on the host, ticks are nanoseconds already.
inline std::vector<TraceSlice> read_trace(const TraceRecord* buffer, TraceLayout layout) {
  std::vector<TraceSlice> slices(layout.slices);
  double ns_per_tick = 1.0;
  std::uint64_t widest = 0;
  for (std::uint32_t s = 0; s < layout.slices; ++s) {
    __builtin_memcpy(&slices[s].header, buffer + std::size_t{s} * layout.slice_records(),
                     sizeof(TraceSliceHeader));
    const TraceSliceHeader& h = slices[s].header;
    if (h.capacity != 0 && h.last_ticks > h.first_ticks && h.last_ticks - h.first_ticks > widest) {
      widest = h.last_ticks - h.first_ticks;
      ns_per_tick = static_cast<double>(h.last_ns - h.first_ns) / static_cast<double>(widest);
    }
  }
  for (std::uint32_t s = 0; s < layout.slices; ++s) {
    const TraceSliceHeader& h = slices[s].header;
    const TraceRecord* records = buffer + std::size_t{s} * layout.slice_records() + trace_header_records;
    std::uint64_t releases[1];  // read through memcpy: the area follows the records
    const auto* release_bytes = reinterpret_cast<const unsigned char*>(records + layout.per_slice);
    const auto ns_at = [&](std::uint64_t ticks) {
      const double since = static_cast<double>(static_cast<std::int64_t>(ticks - h.first_ticks));
      return h.first_ns + static_cast<std::uint64_t>(since * ns_per_tick + 0.5);
    };
    const std::uint32_t stored = std::min(h.count, std::min(h.capacity, layout.per_slice));
    std::vector<TimedTraceEvent> events, released;  // records in order; releases as written
    std::uint32_t acquires = 0;
    for (std::uint32_t i = 0; i < stored; ++i) {
      const TraceRecord& r = records[i];
      events.push_back(TimedTraceEvent{ns_at(r.ticks), r.lap, r.event, r.stage, r.role, r.pipeline});
      if (r.event != TraceEvent::acquire) continue;
      __builtin_memcpy(releases, release_bytes + std::size_t{acquires++} * sizeof(std::uint64_t),
                       sizeof releases);
      if (releases[0] != 0) {
        released.push_back(TimedTraceEvent{ns_at(releases[0]), r.lap, TraceEvent::release, r.stage,
                                           r.role, r.pipeline});
      }
    }
    const auto earlier = [](const TimedTraceEvent& a, const TimedTraceEvent& b) { return a.ns < b.ns; };
    std::sort(released.begin(), released.end(), earlier);
    slices[s].events.resize(events.size() + released.size());
    // On a tie a record comes first (e.g. a release in the nanosecond of its acquire).
    std::merge(events.begin(), events.end(), released.begin(), released.end(),
               slices[s].events.begin(), earlier);
  }
  return slices;
}

}  // namespace linpipe

namespace linpipe::detail {

// The events of one track: a slice's events of one pipeline id and role, in time order.
struct TraceTrack {
  TraceSliceHeader header;
  std::uint8_t pipeline;
  Role role;
  std::vector<TimedTraceEvent> records;
};

inline std::vector<TraceTrack> trace_tracks(const TraceRecord* buffer, TraceLayout layout) {
  std::vector<TraceTrack> tracks;
  for (const TraceSlice& slice : read_trace(buffer, layout)) {
    const std::size_t first = tracks.size();
    for (const TimedTraceEvent& r : slice.events) {
      auto it = std::find_if(tracks.begin() + static_cast<std::ptrdiff_t>(first), tracks.end(),
                             [&](const TraceTrack& t) { return t.pipeline == r.pipeline && t.role == r.role; });
      if (it == tracks.end()) {
        tracks.push_back(TraceTrack{slice.header, r.pipeline, r.role, {}});
        it = tracks.end() - 1;
      }
      it->records.push_back(r);
    }
  }
  return tracks;
}

inline void append(std::string& out, const char* format, auto... values) {
  char text[256];
  const int n = std::snprintf(text, sizeof text, format, values...);
  out.append(text, static_cast<std::size_t>(n < 0 ? 0 : std::min<int>(n, sizeof text - 1)));
}

inline std::string json_string(const char* text) {
  std::string out = "\"";
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c == '"' || *c == '\\') out += '\\';
    if (static_cast<unsigned char>(*c) >= 0x20) out += *c;
  }
  return out + "\"";
}

}  // namespace linpipe::detail

export namespace linpipe {

// One role's share of a trace: a track (CTA, warp, pipeline id, role).
struct TraceRoleSummary {
  std::uint32_t block;
  std::uint32_t warp;
  std::uint8_t pipeline;
  Role role;
  std::uint32_t events;         // stored for this role
  std::uint32_t dropped;        // of the whole slice: recorded past its capacity
  std::uint32_t waits;          // complete wait spans
  std::uint64_t span_ns;        // first to last stored event
  std::uint64_t waiting_ns;     // inside wait spans
  std::uint64_t longest_wait_ns;
  std::uint32_t longest_wait_stage;
  std::uint32_t longest_wait_lap;
};

// Per role, in buffer order.
inline std::vector<TraceRoleSummary> summarise_trace(const TraceRecord* buffer, TraceLayout layout) {
  std::vector<TraceRoleSummary> roles;
  for (const detail::TraceTrack& track : detail::trace_tracks(buffer, layout)) {
    TraceRoleSummary s{track.header.block, track.header.warp, track.pipeline, track.role,
                       static_cast<std::uint32_t>(track.records.size()),
                       track.header.count > track.header.capacity ? track.header.count - track.header.capacity : 0,
                       0, track.records.back().ns - track.records.front().ns, 0, 0, 0, 0};
    const TimedTraceEvent* open = nullptr;
    for (const TimedTraceEvent& r : track.records) {
      if (r.event == TraceEvent::wait_begin) open = &r;
      if (r.event == TraceEvent::wait_end && open != nullptr) {
        const std::uint64_t ns = r.ns - open->ns;
        ++s.waits;
        s.waiting_ns += ns;
        if (ns >= s.longest_wait_ns) {
          s.longest_wait_ns = ns;
          s.longest_wait_stage = r.stage;
          s.longest_wait_lap = r.lap;
        }
        open = nullptr;
      }
    }
    roles.push_back(s);
  }
  return roles;
}

// A table, one line per role: events, time waiting vs working, the longest stall.
inline std::string trace_summary_text(const std::vector<TraceRoleSummary>& roles) {
  std::string out;
  detail::append(out, "%6s %5s %4s %-9s %8s %8s %12s %12s %7s %22s\n", "block", "warp", "pipe",
                 "role", "events", "dropped", "span us", "waiting us", "wait %", "longest stall us (s/lap)");
  for (const TraceRoleSummary& r : roles) {
    const double pct = r.span_ns == 0 ? 0.0 : 100.0 * static_cast<double>(r.waiting_ns) / static_cast<double>(r.span_ns);
    detail::append(out, "%6u %5u %4u %-9s %8u %8u %12.1f %12.1f %6.1f%% %13.2f (%u/%u)\n", r.block,
                   r.warp, unsigned{r.pipeline}, detail::role_name(r.role), r.events, r.dropped,
                   static_cast<double>(r.span_ns) / 1e3, static_cast<double>(r.waiting_ns) / 1e3, pct,
                   static_cast<double>(r.longest_wait_ns) / 1e3, r.longest_wait_stage, r.longest_wait_lap);
  }
  return out;
}

// Chrome/Perfetto trace-event JSON (open it at ui.perfetto.dev): a process per CTA, a thread per
// warp, pipeline id and role; each wait is a slice ("wait empty" / "wait full"), each held stage
// an async span from acquire to release, arrivals and issue marks are instants. Stage and lap
// go in args. Times are microseconds from the trace's first event.
inline std::string trace_to_json(const TraceRecord* buffer, TraceLayout layout, const char* title) {
  const std::vector<detail::TraceTrack> tracks = detail::trace_tracks(buffer, layout);
  std::uint64_t origin = ~std::uint64_t{0};
  for (const auto& t : tracks) origin = std::min(origin, t.records.front().ns);
  const auto us = [origin](std::uint64_t ns) { return static_cast<double>(ns - origin) / 1e3; };
  std::string out = "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"title\": " +
                    detail::json_string(title) + "},\n\"traceEvents\": [\n";
  bool first = true;
  const auto event = [&](const std::string& text) {
    out += first ? "  " : ",\n  ";
    out += text;
    first = false;
  };
  std::vector<std::uint32_t> named_blocks;
  for (const detail::TraceTrack& t : tracks) {
    const std::uint32_t pid = t.header.block;
    const std::uint32_t tid = t.header.warp * 512 + t.pipeline * 2u + (t.role == Role::producer ? 0u : 1u);
    std::string text;
    if (std::find(named_blocks.begin(), named_blocks.end(), pid) == named_blocks.end()) {
      named_blocks.push_back(pid);
      detail::append(text, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %u, \"args\": {\"name\": \"block %u\"}}",
                     pid, pid);
      event(text);
      text.clear();
    }
    detail::append(text, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, "
                   "\"args\": {\"name\": \"warp %u %s (pipeline %u)\"}}",
                   pid, tid, t.header.warp, detail::role_name(t.role), unsigned{t.pipeline});
    event(text);
    const char* wait_name = t.role == Role::producer ? "wait empty" : "wait full";
    const TimedTraceEvent* open = nullptr;
    for (const TimedTraceEvent& r : t.records) {
      text.clear();
      switch (r.event) {
        case TraceEvent::wait_begin: open = &r; break;
        case TraceEvent::wait_end:
          if (open != nullptr) {
            detail::append(text, "{\"name\": \"%s\", \"ph\": \"X\", \"pid\": %u, \"tid\": %u, \"ts\": %.3f, "
                           "\"dur\": %.3f, \"args\": {\"stage\": %u, \"lap\": %u}}",
                           wait_name, pid, tid, us(open->ns), us(r.ns) - us(open->ns),
                           unsigned{r.stage}, r.lap);
            open = nullptr;
          }
          break;
        case TraceEvent::acquire:
        case TraceEvent::release:
          detail::append(text, "{\"name\": \"stage %u\", \"cat\": \"%s held\", \"ph\": \"%s\", \"id\": \"%u.%u.%u.%u\", "
                         "\"pid\": %u, \"tid\": %u, \"ts\": %.3f, \"args\": {\"stage\": %u, \"lap\": %u}}",
                         unsigned{r.stage}, detail::role_name(t.role), r.event == TraceEvent::acquire ? "b" : "e",
                         pid, tid, unsigned{r.stage}, r.lap, pid, tid, us(r.ns), unsigned{r.stage}, r.lap);
          break;
        case TraceEvent::arrive:
        case TraceEvent::issue:
          detail::append(text, "{\"name\": \"%s\", \"ph\": \"i\", \"s\": \"t\", \"pid\": %u, \"tid\": %u, "
                         "\"ts\": %.3f, \"args\": {\"stage\": %u, \"lap\": %u}}",
                         r.event == TraceEvent::arrive ? "arrive" : "issue", pid, tid, us(r.ns),
                         unsigned{r.stage}, r.lap);
          break;
      }
      if (!text.empty()) event(text);
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace linpipe

#include "build/compiler_facts.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "build/occupancy.hpp"

namespace kwb::build {

namespace {

constexpr size_t k_max_ptx = 64u << 20;

// Calls f(line) for each line of `text`.
template <class F>
void for_each_line(std::string_view text, F f) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    f(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

// The integer just before `suffix` in `line` ("256 bytes stack frame" -> 256), or -1.
int64_t number_before(std::string_view line, std::string_view suffix) {
  size_t at = line.find(suffix);
  if (at == std::string_view::npos) return -1;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  int64_t v = -1;
  if (begin == end || std::from_chars(line.data() + begin, line.data() + end, v).ec != std::errc{}) return -1;
  return v;
}

// The integer just after `prefix` ("Used 28 registers" with "Used " -> 28), or -1.
int64_t number_after(std::string_view line, std::string_view prefix) {
  size_t at = line.find(prefix);
  if (at == std::string_view::npos) return -1;
  int64_t v = -1;
  const char* p = line.data() + at + prefix.size();
  if (std::from_chars(p, line.data() + line.size(), v).ec != std::errc{}) return -1;
  return v;
}

// The name quoted in "... 'NAME' ..." or following `prefix` up to the end of the line.
std::string quoted(std::string_view line) {
  size_t a = line.find('\'');
  size_t b = a == std::string_view::npos ? a : line.find('\'', a + 1);
  return b == std::string_view::npos ? std::string() : std::string(line.substr(a + 1, b - a - 1));
}

void count(std::string_view op, core::InstructionMix& m) {
  auto width = [&](int& scalar, int& v2, int& v4) {
    if (op.find(".v4") != std::string_view::npos || op.find(".v8") != std::string_view::npos) ++v4;
    else if (op.find(".v2") != std::string_view::npos) ++v2;
    else ++scalar;
  };
  if (op.starts_with("ld.global.")) width(m.ld_global, m.ld_global_v2, m.ld_global_v4);
  else if (op.starts_with("st.global.")) width(m.st_global, m.st_global_v2, m.st_global_v4);
  else if (op.starts_with("ld.shared")) ++m.ld_shared;
  else if (op.starts_with("st.shared")) ++m.st_shared;
  else if (op.starts_with("cp.async")) ++m.cp_async;
  else if (op.starts_with("wgmma.mma_async")) ++m.wgmma;
  else if (op.starts_with("mma.") || op.starts_with("wmma.mma")) ++m.mma;
}

}  // namespace

std::map<std::string, core::KernelFacts> parse_ptxas_info(std::string_view log) {
  std::map<std::string, core::KernelFacts> out;
  std::string entry, properties_of;
  for_each_line(log, [&](std::string_view line) {
    // NVRTC prefixes every line with "ptxas"; nvcc indents the frame line ("    256 bytes stack frame").
    if (!line.starts_with("ptxas") && line.find("bytes stack frame") == std::string_view::npos) return;
    if (line.find("Compiling entry function") != std::string_view::npos) {
      entry = quoted(line);
      properties_of.clear();
      if (!entry.empty()) out[entry].kernel = entry;
      return;
    }
    if (auto at = line.find("Function properties for "); at != std::string_view::npos) {
      properties_of = std::string(line.substr(at + std::string_view("Function properties for ").size()));
      while (!properties_of.empty() && (properties_of.back() == ' ' || properties_of.back() == '\r'))
        properties_of.pop_back();
      return;
    }
    if (entry.empty()) return;
    core::KernelFacts& k = out[entry];
    if (line.find("bytes stack frame") != std::string_view::npos) {
      if (properties_of != entry) return;  // a called function's frame
      k.stack_frame_bytes = std::max<int64_t>(0, number_before(line, "bytes stack frame"));
      k.spill_store_bytes = std::max<int64_t>(0, number_before(line, "bytes spill stores"));
      k.spill_load_bytes = std::max<int64_t>(0, number_before(line, "bytes spill loads"));
      return;
    }
    if (int64_t regs = number_after(line, "Used "); regs >= 0 && line.find("registers") != std::string_view::npos) {
      k.registers = int(std::min<int64_t>(regs, 1 << 16));
      k.barriers = int(std::clamp<int64_t>(number_after(line, "used "), 0, 1 << 16));
      k.static_smem_bytes = std::max<int64_t>(0, number_before(line, "bytes smem"));
    }
  });
  return out;
}

std::map<std::string, PtxEntry> scan_ptx(std::string_view ptx) {
  if (ptx.size() > k_max_ptx) ptx = ptx.substr(0, k_max_ptx);
  std::map<std::string, PtxEntry> out;
  PtxEntry* current = nullptr;
  for_each_line(ptx, [&](std::string_view line) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos) return;
    line = line.substr(b);
    if (line.starts_with(".visible .entry ") || line.starts_with(".entry ") || line.starts_with(".weak .entry ")) {
      size_t at = line.find(".entry ") + 7;
      size_t end = line.find_first_of("( \t", at);
      current = &out[std::string(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at))];
      return;
    }
    if (line.find(".func") != std::string_view::npos && (line.starts_with(".func") || line.starts_with(".visible .func") ||
                                                          line.starts_with(".weak .func"))) {
      current = nullptr;  // device functions are not counted (rarely left uninlined)
      return;
    }
    if (!current) return;
    if (line.starts_with(".maxntid")) {
      int64_t threads = 1;
      std::string_view rest = line.substr(8);
      for (int i = 0; i < 3 && !rest.empty(); ++i) {
        size_t d = rest.find_first_of("0123456789");
        if (d == std::string_view::npos) break;
        int64_t v = 0;
        auto r = std::from_chars(rest.data() + d, rest.data() + rest.size(), v);
        if (r.ec != std::errc{}) break;
        threads *= std::clamp<int64_t>(v, 1, 1 << 16);
        rest = rest.substr(size_t(r.ptr - rest.data()));
      }
      current->maxntid = int(std::min<int64_t>(threads, 1 << 20));
      return;
    }
    if (line.starts_with("@")) {  // predicated: "@%p1 bra ..." / "@!%p1 st.global ..."
      size_t sp = line.find_first_of(" \t");
      if (sp == std::string_view::npos) return;
      line = line.substr(line.find_first_not_of(" \t", sp) == std::string_view::npos ? line.size()
                                                                                  : line.find_first_not_of(" \t", sp));
    }
    size_t end = line.find_first_of(" \t;");
    count(line.substr(0, end), current->mix);
  });
  return out;
}

core::ConfigFacts config_facts(const std::string& config, const std::string& arch, std::string_view log,
                               std::string_view ptx, const std::vector<std::string>& kernels) {
  core::ConfigFacts f;
  f.config = config;
  f.arch = arch;
  f.source = "nvrtc ptxas -v";
  auto info = parse_ptxas_info(log);
  auto entries = scan_ptx(ptx);
  auto limits = arch_limits(arch);
  std::vector<std::string> seen;
  for (const auto& name : kernels) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;  // launched twice: one entry
    seen.push_back(name);
    core::KernelFacts k;
    if (auto it = info.find(name); it != info.end()) k = it->second;
    k.kernel = name;
    int bound = 0;
    if (auto it = entries.find(name); it != entries.end()) {
      k.instructions = it->second.mix;
      bound = it->second.maxntid;
    }
    if (limits) {
      k.max_threads_per_block = max_threads_per_block(*limits, k.registers);
      if (bound > 0) k.max_threads_per_block = std::min(k.max_threads_per_block, bound);
    }
    f.kernels.push_back(std::move(k));
  }
  return f;
}

core::ConfigFacts launcher_facts(const std::string& arch, std::string_view report) {
  core::ConfigFacts f;
  f.config = "default";
  f.arch = arch;
  f.source = "nvcc -Xptxas -v";
  auto limits = arch_limits(arch);
  for (auto& [name, k] : parse_ptxas_info(report)) {
    if (limits) k.max_threads_per_block = max_threads_per_block(*limits, k.registers);
    f.kernels.push_back(std::move(k));
    if (f.kernels.size() >= 256) break;  // a launcher with more kernels than that: the first 256 by name
  }
  return f;
}

std::string ptxas_report_lines(std::string_view log) {
  std::string out;
  for_each_line(log, [&](std::string_view line) {
    if (out.size() > (1u << 20)) return;
    if (line.starts_with("ptxas info") || line.find("bytes stack frame") != std::string_view::npos)
      out.append(line).push_back('\n');
  });
  return out;
}

}  // namespace kwb::build

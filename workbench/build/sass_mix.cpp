#include "build/sass_mix.hpp"

#include <cctype>

namespace kwb::build {

namespace {

constexpr size_t k_max_sass = 64u << 20;
constexpr size_t k_max_functions = 4096;

// The bits of a memory access from its modifiers (".128" -> 128, ".64" -> 64, otherwise 32).
int sass_access_bits(std::string_view opcode) {
  size_t pos = 0;
  while ((pos = opcode.find('.', pos)) != std::string_view::npos) {
    ++pos;
    size_t end = opcode.find('.', pos);
    std::string_view mod = opcode.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (mod == "128") return 128;
    if (mod == "64") return 64;
  }
  return 32;
}

void sass_width(std::string_view opcode, int& w32, int& w64, int& w128) {
  int bits = sass_access_bits(opcode);
  (bits == 128 ? w128 : bits == 64 ? w64 : w32)++;
}

std::string_view sass_trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The function a header line opens, or "".
std::string sass_function_of(std::string_view line) {
  if (line.starts_with(".section")) {  // nvdisasm: .section	.text.NAME,"ax",@progbits
    size_t at = line.find(".text.");
    if (at == std::string_view::npos) return {};
    at += 6;
    size_t end = line.find_first_of(", \t\"", at);
    return std::string(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  }
  if (line.starts_with("Function :")) return std::string(sass_trim(line.substr(10)));  // cuobjdump
  return {};
}

}  // namespace

void count_sass_opcode(std::string_view op, core::SassMix& m) {
  ++m.instructions;
  std::string_view base = op.substr(0, op.find('.'));
  if (base == "LDG") sass_width(op, m.ldg_32, m.ldg_64, m.ldg_128);
  else if (base == "STG") sass_width(op, m.stg_32, m.stg_64, m.stg_128);
  else if (base == "LDS") ++m.lds;
  else if (base == "STS") ++m.sts;
  else if (base == "LDSM") ++m.ldsm;
  else if (base == "LDGSTS") ++m.ldgsts;
  else if (base == "UTMALDG" || base == "UTMASTG" || base == "UBLKCP" || base == "UTMAPF") ++m.tma;
  else if (base == "LDL") ++m.ldl;
  else if (base == "STL") ++m.stl;
  else if (base == "HMMA") ++m.hmma;
  else if (base == "HGMMA") ++m.hgmma;
  else if (base == "IMMA") ++m.imma;
  else if (base == "QGMMA" || base == "IGMMA" || base == "BGMMA" || base == "DMMA" || base == "BMMA" ||
           base == "OMMA" || base == "QMMA" || base == "UTCMMA" || base == "UTCHMMA" || base == "UTCQMMA")
    ++m.other_mma;
}

std::map<std::string, core::SassMix> scan_sass(std::string_view sass) {
  if (sass.size() > k_max_sass) sass = sass.substr(0, k_max_sass);
  std::map<std::string, core::SassMix> out;
  core::SassMix* current = nullptr;
  size_t pos = 0;
  while (pos < sass.size()) {
    size_t nl = sass.find('\n', pos);
    if (nl == std::string_view::npos) nl = sass.size();
    std::string_view line = sass_trim(sass.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (std::string name = sass_function_of(line); !name.empty()) {
      if (out.size() >= k_max_functions && !out.contains(name)) {
        current = nullptr;
        continue;
      }
      current = &out[name];
      continue;
    }
    // An instruction: /*0040*/ [@P0 | @!PT | @UP1] OPCODE operands ;  (cuobjdump adds /* 0x... */)
    if (!current || !line.starts_with("/*")) continue;
    size_t close = line.find("*/");
    if (close == std::string_view::npos || close < 3) continue;
    bool address = true;
    for (char c : line.substr(2, close - 2)) address = address && std::isxdigit(static_cast<unsigned char>(c));
    if (!address) continue;
    std::string_view rest = sass_trim(line.substr(close + 2));
    if (rest.find(';') == std::string_view::npos) continue;  // every instruction ends with " ;"
    if (rest.starts_with("{")) rest = sass_trim(rest.substr(1));  // dual-issue braces of older archs
    if (rest.starts_with("@")) {
      size_t sp = rest.find_first_of(" \t");
      if (sp == std::string_view::npos) continue;
      rest = sass_trim(rest.substr(sp));
    }
    size_t end = rest.find_first_of(" \t;");
    std::string_view opcode = rest.substr(0, end);
    if (opcode.empty() || !std::isupper(static_cast<unsigned char>(opcode[0]))) continue;  // .byte data, labels
    count_sass_opcode(opcode, *current);
  }
  return out;
}

}  // namespace kwb::build

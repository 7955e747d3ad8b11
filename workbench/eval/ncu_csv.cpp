// eval/ncu_csv.hpp: ncu's CSV records, numbers and units.
#include "eval/ncu_csv.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace kwb::eval {

namespace {
namespace csv {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace csv
}  // namespace

util::Result<CsvText> read_csv(std::string_view text) {
  CsvText out;
  size_t i = 0;
  int line = 1;
  while (i < text.size()) {
    // One physical line that is not a record: blank, or an ncu message.
    size_t eol = text.find('\n', i);
    std::string_view physical = text.substr(i, eol == std::string_view::npos ? text.size() - i : eol - i);
    if (csv::trim(physical).empty() || csv::starts_with(physical, "==")) {
      if (!csv::trim(physical).empty()) out.messages.emplace_back(csv::trim(physical));
      i = eol == std::string_view::npos ? text.size() : eol + 1;
      ++line;
      continue;
    }
    CsvRecord rec;
    rec.line = line;
    std::string field;
    bool quoted = false, was_quoted = false;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (quoted) {
        if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n') ++line;
          field += c;
        }
      } else if (c == '"' && !was_quoted && csv::trim(field).empty()) {
        quoted = was_quoted = true;
        field.clear();
      } else if (c == ',') {
        rec.fields.push_back(was_quoted ? field : std::string(csv::trim(field)));
        field.clear();
        was_quoted = false;
      } else if (c == '\n') {
        break;
      } else if (!was_quoted) {  // text after a closing quote (a stray \r) is dropped
        field += c;
      }
    }
    if (quoted)
      return util::fail("line " + std::to_string(rec.line),
                        "a quoted field opened here never ends: the CSV is truncated or not ncu's");
    rec.fields.push_back(was_quoted ? field : std::string(csv::trim(field)));
    if (i < text.size()) ++i;  // the newline
    ++line;
    out.records.push_back(std::move(rec));
  }
  return out;
}

std::optional<double> ncu_number(std::string_view text) {
  text = csv::trim(text);
  std::string digits;
  digits.reserve(text.size());
  for (char c : text)
    if (c != ',') digits += c;
  if (digits.empty()) return std::nullopt;
  double v = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

double ncu_unit_scale(std::string_view unit) {
  unit = csv::trim(unit);
  struct Unit {
    std::string_view name;
    double scale;
  };
  static constexpr std::array<Unit, 12> k_units = {{{"nsecond", 1},
                                                    {"ns", 1},
                                                    {"usecond", 1e3},
                                                    {"us", 1e3},
                                                    {"msecond", 1e6},
                                                    {"ms", 1e6},
                                                    {"second", 1e9},
                                                    {"s", 1e9},
                                                    {"byte", 1},
                                                    {"B", 1},
                                                    {"%", 1},
                                                    {"", 1}}};
  for (const auto& u : k_units)
    if (unit == u.name) return u.scale;
  // SI prefixes on any other unit: "Kbyte", "Mbyte", "Gbyte", "Ksector", "Mcycle", ...
  if (unit.size() > 1) {
    switch (unit.front()) {
      case 'K': return 1e3;
      case 'M': return 1e6;
      case 'G': return 1e9;
      case 'T': return 1e12;
      default: break;
    }
  }
  return 1;
}

}  // namespace kwb::eval

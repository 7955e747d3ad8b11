// Parser of the launch-plan comment lines (docs/cuda.md):
//   // kwb:launch KERNEL grid=(E[,E[,E]]) block=(E[,E[,E]]) [smem=E] args=(NAME, ...)
//   // kwb:tune NAME=V1,V2,... [NAME2=...]   (a value may be LO..HI, range(LO,HI,STEP), pow2(LO,HI))
//   // kwb:constraint CONDITION                  (over the tunables: spec/tune_space.hpp)
//   // kwb:workspace bytes=E
//   // kwb:variant NAME
// A value is either a parenthesised group (may hold spaces and commas) or one word.
#include "spec/launch_plan.hpp"

#include <cctype>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/plan_text.hpp"
#include "spec/tune_space.hpp"

namespace kwb::spec {

namespace {

bool is_ident(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

using plan_text::split_top;
using plan_text::trim;

class LineParser {
 public:
  LineParser(std::string_view text, std::string where, std::string directive)
      : m_text(text), m_where(std::move(where)), m_directive(std::move(directive)) {}

  util::Error error(const std::string& msg) const { return {m_where, m_directive + ": " + msg}; }
  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  bool done() {
    skip_space();
    return m_pos >= m_text.size();
  }
  std::string_view word() {
    skip_space();
    size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
      ++m_pos;
    return m_text.substr(start, m_pos - start);
  }
  // key=value; `grouped` tells whether the value was written in parentheses.
  util::Result<std::pair<std::string, std::string_view>> key_value(bool& grouped) {
    auto key = word();
    if (key.empty()) return std::unexpected(error(fmt::format("expected key=value at '{}'", rest())));
    if (m_pos >= m_text.size() || m_text[m_pos] != '=')
      return std::unexpected(error(fmt::format("expected '=' after '{}'", key)));
    ++m_pos;
    grouped = m_pos < m_text.size() && m_text[m_pos] == '(';
    if (grouped) {
      int depth = 0;
      size_t start = m_pos + 1;
      for (; m_pos < m_text.size(); ++m_pos) {
        if (m_text[m_pos] == '(') ++depth;
        else if (m_text[m_pos] == ')' && --depth == 0) break;
      }
      if (m_pos >= m_text.size()) return std::unexpected(error(fmt::format("unbalanced parentheses in {}=", key)));
      ++m_pos;
      return std::pair{std::string(key), m_text.substr(start, m_pos - 1 - start)};
    }
    // A bare value runs to the next `name=` word or the end of the line: smem=4 * BLOCK args=(...)
    size_t start = m_pos;
    while (m_pos < m_text.size() && !(std::isspace(static_cast<unsigned char>(m_text[m_pos])) && next_is_key(m_pos)))
      ++m_pos;
    if (trim(m_text.substr(start, m_pos - start)).empty())
      return std::unexpected(error(fmt::format("{}= has no value", key)));
    return std::pair{std::string(key), trim(m_text.substr(start, m_pos - start))};
  }
  // Whether the word after the blanks at `pos` is `name=` (and not `name==`).
  bool next_is_key(size_t pos) const {
    while (pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[pos]))) ++pos;
    size_t end = pos;
    while (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) || m_text[end] == '_')) ++end;
    return end > pos && is_ident(m_text.substr(pos, end - pos)) && end < m_text.size() && m_text[end] == '=' &&
           (end + 1 >= m_text.size() || m_text[end + 1] != '=');
  }
  std::string_view rest() const { return m_text.substr(std::min(m_pos, m_text.size())); }

 private:
  std::string_view m_text;
  size_t m_pos = 0;
  std::string m_where, m_directive;
};

util::Result<std::string> checked_expr(LineParser& p, const std::string& key, std::string_view text) {
  auto e = Expr::parse(trim(text));
  if (!e) return std::unexpected(p.error(fmt::format("{}: '{}': {}", key, trim(text), e.error().message)));
  return std::string(trim(text));
}

util::Result<std::vector<std::string>> dims(LineParser& p, const std::string& key, std::string_view text) {
  auto parts = split_top(text);
  if (parts.size() > 3) return std::unexpected(p.error(key + "= has " + std::to_string(parts.size()) +
                                                       " dimensions; at most 3 (x, y, z)"));
  std::vector<std::string> out;
  for (auto part : parts) {
    if (part.empty()) return std::unexpected(p.error(key + "= has an empty dimension"));
    auto e = checked_expr(p, key, part);
    if (!e) return std::unexpected(e.error());
    out.push_back(*e);
  }
  return out;
}

util::Result<core::Launch> parse_launch(LineParser& p, int line) {
  core::Launch l;
  l.line = line;
  l.kernel = std::string(p.word());
  if (l.kernel.empty() || !is_ident(l.kernel))
    return std::unexpected(p.error("expected the kernel's name first, e.g. `kwb:launch my_kernel grid=(...) ...`"));
  std::set<std::string> seen;
  while (!p.done()) {
    bool grouped = false;
    auto kv = p.key_value(grouped);
    if (!kv) return std::unexpected(kv.error());
    auto& [key, value] = *kv;
    if (!seen.insert(key).second) return std::unexpected(p.error(key + "= is given twice"));
    if (key == "grid" || key == "block") {
      auto d = dims(p, key, value);
      if (!d) return std::unexpected(d.error());
      (key == "grid" ? l.grid : l.block) = std::move(*d);
    } else if (key == "smem") {
      auto e = checked_expr(p, key, value);
      if (!e) return std::unexpected(e.error());
      l.smem = *e;
    } else if (key == "args") {
      if (!grouped) return std::unexpected(p.error("args= takes a list in parentheses, e.g. args=(x, y, n)"));
      if (!trim(value).empty())
        for (auto a : split_top(value)) {
          if (!is_ident(a)) return std::unexpected(p.error(fmt::format("argument '{}' is not a name", a)));
          l.args.push_back({core::LaunchArg::Kind::tensor, std::string(a), 0});
        }
    } else {
      return std::unexpected(p.error("unknown key '" + key + "' (keys: grid, block, smem, args)"));
    }
  }
  for (const char* required : {"grid", "block", "args"})
    if (!seen.contains(required))
      return std::unexpected(p.error(std::string("missing ") + required + "=(...)"));
  return l;
}

util::Result<void> parse_tune(LineParser& p, int line, core::LaunchPlan& plan) {
  if (p.done()) return std::unexpected(p.error("expected NAME=V1,V2,..."));
  while (!p.done()) {
    bool grouped = false;
    auto kv = p.key_value(grouped);
    if (!kv) return std::unexpected(kv.error());
    core::Tunable t;
    t.name = kv->first;
    t.line = line;
    for (const auto& other : plan.tunables)
      if (other.name == t.name) return std::unexpected(p.error("tunable " + t.name + " is declared twice"));
    auto values = parse_tune_values(kv->second);
    if (!values) return std::unexpected(p.error(fmt::format("{}: {}", t.name, values.error().message)));
    t.values = std::move(*values);
    plan.tunables.push_back(std::move(t));
  }
  return {};
}

}  // namespace

util::Result<core::LaunchPlan> parse_launch_plan(std::string_view source, std::string_view file) {
  core::LaunchPlan plan;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = trim(source.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (!line.starts_with("//")) continue;
    line = trim(line.substr(2));
    if (!line.starts_with("kwb:")) continue;
    line.remove_prefix(4);
    size_t sp = 0;
    while (sp < line.size() && !std::isspace(static_cast<unsigned char>(line[sp]))) ++sp;
    std::string name(line.substr(0, sp));
    std::string where = fmt::format("{}:{}", file, line_no);
    LineParser p(line.substr(sp), where, "kwb:" + name);
    if (name == "launch") {
      auto l = parse_launch(p, line_no);
      if (!l) return std::unexpected(l.error());
      plan.launches.push_back(std::move(*l));
    } else if (name == "tune") {
      if (auto r = parse_tune(p, line_no, plan); !r) return std::unexpected(r.error());
    } else if (name == "constraint") {
      auto text = trim(p.rest());
      auto e = Expr::parse_condition(text);
      if (text.empty() || !e)
        return std::unexpected(p.error(text.empty() ? "expected a condition over the tunables, e.g. BM*BN <= 16384"
                                                    : fmt::format("'{}': {}", text, e.error().message)));
      plan.constraints.push_back({std::string(text), line_no});
    } else if (name == "workspace") {
      if (!plan.workspace_bytes.empty()) return std::unexpected(p.error("given twice"));
      bool grouped = false;
      auto kv = p.key_value(grouped);
      if (!kv) return std::unexpected(kv.error());
      if (kv->first != "bytes") return std::unexpected(p.error("expected bytes=EXPR"));
      auto e = checked_expr(p, "bytes", kv->second);
      if (!e) return std::unexpected(e.error());
      if (!p.done()) return std::unexpected(p.error(fmt::format("unexpected '{}'", p.rest())));
      plan.workspace_bytes = *e;
      plan.workspace_line = line_no;
    } else if (name == "variant") {
      auto v = p.word();
      if (v.empty() || !p.done()) return std::unexpected(p.error("expected one variant name, e.g. kwb:variant f32"));
      plan.variant = std::string(v);
    } else {
      return util::fail(where, "unknown directive 'kwb:" + name +
                                   "' (known: kwb:launch, kwb:tune, kwb:constraint, kwb:workspace, kwb:variant)");
    }
  }
  if (plan.launches.empty())
    return util::fail(std::string(file),
                      "no kwb:launch line: a cuda candidate names its kernels and their launch in comment lines "
                      "such as `// kwb:launch my_kernel grid=(ceil_div(n, 256)) block=(256) args=(x, y, n)` "
                      "(see docs/cuda.md)");
  if (auto space = enumerate_tune_space(plan, file); !space) return std::unexpected(space.error());
  return plan;
}

util::Result<std::string> plan_lines_from_json(const nlohmann::json& launch, const nlohmann::json& tune) {
  std::string out;
  auto line = [&](const nlohmann::json& v, const std::string& field) -> util::Result<void> {
    if (!v.is_string()) return util::fail(field, std::string("expected a string, got ") + v.type_name());
    std::string text = v.get<std::string>();
    if (text.find('\n') != std::string::npos) return util::fail(field, "one directive per string (no newlines)");
    out += std::string(text.starts_with("kwb:") ? "// " : "// kwb:launch ") + text + "\n";
    return {};
  };
  if (launch.is_array()) {
    for (size_t i = 0; i < launch.size(); ++i)
      if (auto r = line(launch[i], "launch[" + std::to_string(i) + "]"); !r) return std::unexpected(r.error());
  } else if (!launch.is_null()) {
    if (auto r = line(launch, "launch"); !r) return std::unexpected(r.error());
  }
  if (!tune.is_null()) {
    if (!tune.is_object()) return util::fail("tune", std::string("expected an object, got ") + tune.type_name());
    for (const auto& [name, values] : tune.items()) {
      if (!is_ident(name)) return util::fail("tune." + name, "not a macro name");
      if (!values.is_array() || values.empty())
        return util::fail("tune." + name, "expected a non-empty array of integers");
      std::string list;
      for (const auto& v : values) {
        if (!v.is_number_integer()) return util::fail("tune." + name, "expected integers, got " + v.dump());
        list += (list.empty() ? "" : ",") + std::to_string(v.get<int64_t>());
      }
      out += "// kwb:tune " + name + "=" + list + "\n";
    }
  }
  return out;
}

std::vector<core::TuneConfig> tune_configs(const core::LaunchPlan& plan) {
  // parse_launch_plan checked the space; a plan made otherwise that fails gets its first values.
  if (auto space = enumerate_tune_space(plan, "launch plan")) return std::move(*space);
  core::TuneConfig first;
  for (const auto& t : plan.tunables)
    if (!t.values.empty()) first.values[t.name] = t.values.front();
  return {first};
}

std::vector<std::string> config_defines(const core::TuneConfig& config) {
  std::vector<std::string> out;
  for (const auto& [k, v] : config.values) out.push_back("-D" + k + "=" + std::to_string(v));
  return out;
}

}  // namespace kwb::spec

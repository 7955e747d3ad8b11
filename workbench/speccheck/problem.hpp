#pragma once
// What `kwb spec check` finds: one problem per finding, each naming the file, the field (a JSON
// path into spec.json such as `workloads.test[2].params.cols`, or `line:col` in a source file)
// and the reason. Errors fail the check; warnings fail it only under --strict; notes are reports
// (the tolerance headroom of each output) that never fail it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::speccheck {

enum class Severity { error, warning, note };

struct Problem {
  std::string file;   // "specs/softmax/spec.json", "specs/softmax/reference.cpp"
  std::string field;  // JSON path or "line:col"; empty when the whole file is meant
  Severity severity = Severity::error;
  std::string message;
};

const char* severity_name(Severity s);
// "specs/softmax/spec.json: workloads.test[2]: error: ..." (the field left out when empty).
std::string format_problem(const Problem& p);
// [{"file", "field", "severity", "message"}, ...]
nlohmann::ordered_json problems_json(const std::vector<Problem>& problems);
size_t count(const std::vector<Problem>& problems, Severity s);

// Collects the problems of one spec folder with the files named once.
class Findings {
 public:
  Findings(std::string spec_file, std::string reference_file)
      : m_spec_file(std::move(spec_file)), m_reference_file(std::move(reference_file)) {}
  void spec_error(std::string field, std::string message) { add(m_spec_file, std::move(field), Severity::error, std::move(message)); }
  void spec_warning(std::string field, std::string message) { add(m_spec_file, std::move(field), Severity::warning, std::move(message)); }
  void reference_error(std::string field, std::string message) { add(m_reference_file, std::move(field), Severity::error, std::move(message)); }
  void reference_warning(std::string field, std::string message) { add(m_reference_file, std::move(field), Severity::warning, std::move(message)); }
  void spec_note(std::string field, std::string message) { add(m_spec_file, std::move(field), Severity::note, std::move(message)); }
  void add(std::string file, std::string field, Severity s, std::string message) {
    m_problems.push_back({std::move(file), std::move(field), s, std::move(message)});
  }
  const std::string& spec_file() const { return m_spec_file; }
  const std::string& reference_file() const { return m_reference_file; }
  std::vector<Problem>& problems() { return m_problems; }

 private:
  std::string m_spec_file, m_reference_file;
  std::vector<Problem> m_problems;
};

}  // namespace kwb::speccheck

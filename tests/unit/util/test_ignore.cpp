// util::ignore (workbench/util/ignore.hpp): a dropped error is logged once at warn level with the
// why; a dropped success logs nothing.
#include <gtest/gtest.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "util/ignore.hpp"
#include "util/log.hpp"

namespace kwb::util {
namespace {

// Installs a logger writing to a string as spdlog's default for the test's lifetime.
class CapturedLog {
 public:
  CapturedLog() : m_previous(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(m_out);
    auto logger = std::make_shared<spdlog::logger>("captured", sink);
    logger->set_pattern("%l %v");
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() {
    set_log_format(LogFormat::text);
    spdlog::set_formatter(std::make_unique<spdlog::pattern_formatter>());  // undoes a JSON formatter
    spdlog::set_default_logger(m_previous);
  }
  std::string text() {
    spdlog::default_logger()->flush();
    return m_out.str();
  }

 private:
  std::ostringstream m_out;
  std::shared_ptr<spdlog::logger> m_previous;
};

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

Result<int> failing() { return fail(ErrorKind::storage_full, "cache/abc.sass", "no space left on device"); }
Result<void> succeeding() { return {}; }

TEST(Ignore, LogsADroppedErrorOnceAtWarnLevelWithTheWhy) {
  CapturedLog log;
  ignore(failing(), "caching a disassembly: a failed write only costs a re-run");
  const std::string text = log.text();
  EXPECT_EQ(count(text, "\n"), 1u) << text;
  EXPECT_EQ(text.rfind("warning ignored_error ", 0), 0u) << text;
  EXPECT_NE(text.find("why=\"caching a disassembly: a failed write only costs a re-run\""), std::string::npos) << text;
  EXPECT_NE(text.find("error=\"cache/abc.sass: no space left on device\""), std::string::npos) << text;
  EXPECT_NE(text.find("kind=storage_full"), std::string::npos) << text;
}

TEST(Ignore, IsSilentOnSuccess) {
  CapturedLog log;
  ignore(succeeding(), "nothing to say");
  Result<int> value = 3;
  ignore(value, "nothing to say either");
  EXPECT_EQ(log.text(), "");
}

TEST(Ignore, TakesAPlainExpectedTooAndCarriesTheFieldsInJson) {
  CapturedLog log;
  set_log_format(LogFormat::json);
  std::expected<int, Error> plain = fail(ErrorKind::busy, "kwb.db", "locked");
  ignore(plain, "a later poll retries");
  const std::string text = log.text();
  ASSERT_EQ(count(text, "\n"), 1u) << text;
  auto line = nlohmann::json::parse(text);
  EXPECT_EQ(line["level"], "warning");
  EXPECT_EQ(line["event"], "ignored_error");
  EXPECT_EQ(line["why"], "a later poll retries");
  EXPECT_EQ(line["error"], "kwb.db: locked");
  EXPECT_EQ(line["kind"], "busy");
}

}  // namespace
}  // namespace kwb::util

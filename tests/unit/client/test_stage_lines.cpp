// client::StageLines: one line per finished stage for `kwb submit --wait`, a failed line for the
// stage open when the verdict came, queued and cancelled lines.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "client/stage_lines.hpp"

namespace kwb::client {
namespace {

CandidateEvent event(const std::string& kind, nlohmann::json data) { return CandidateEvent{0, "", kind, std::move(data)}; }

TEST(StageLines, AFinishedStageGivesOneAlignedLine) {
  StageLines lines;
  EXPECT_EQ(lines.on_event(event("stage", {{"stage", "compile"}, {"finished", false}})), std::nullopt);
  EXPECT_EQ(lines.on_event(event("stage", {{"stage", "compile"}, {"finished", true}, {"detail", "g++ 12.2.0, 412 ms"}})),
            "  compile   done    g++ 12.2.0, 412 ms");
  EXPECT_EQ(lines.on_event(event("stage", {{"stage", "validate"}, {"finished", true}})), "  validate  done");
}

TEST(StageLines, AVerdictDuringAStageMarksItFailed) {
  StageLines lines;
  lines.on_event(event("stage", {{"stage", "validate"}, {"finished", false}}));
  EXPECT_EQ(lines.on_event(event("verdict", {{"status", "incorrect"}, {"reason", "workload n7: 3 wrong elements"}})),
            "  validate  failed  incorrect: workload n7: 3 wrong elements");
  // With no stage open (every stage finished), the verdict adds no line.
  EXPECT_EQ(lines.on_event(event("verdict", {{"status", "accepted"}, {"reason", "fine"}})), std::nullopt);
  lines.on_event(event("stage", {{"stage", "benchmark"}, {"finished", false}}));
  auto line = lines.on_event(event("verdict", {{"status", "crashed"}, {"reason", std::string(400, 'r')}}));
  ASSERT_TRUE(line);
  EXPECT_EQ(line->size(), std::string("  benchmark failed  ").size() + 160);  // long reasons shortened
  EXPECT_TRUE(line->ends_with("..."));
}

TEST(StageLines, QueuedAndCancelledStatesHaveLinesOfTheirOwn) {
  StageLines lines;
  EXPECT_EQ(lines.on_event(event("state", {{"state", "queued"}, {"detail", "3 ahead"}})), "  queued            3 ahead");
  EXPECT_EQ(lines.on_event(event("state", {{"state", "compiling"}})), std::nullopt);
  EXPECT_EQ(lines.on_event(event("state", {{"state", "cancelled"}})), "  cancelled");
  lines.on_event(event("stage", {{"stage", "compile"}, {"finished", false}}));
  EXPECT_EQ(lines.on_event(event("state", {{"state", "cancelled"}})), "  compile   cancelled");
}

}  // namespace
}  // namespace kwb::client

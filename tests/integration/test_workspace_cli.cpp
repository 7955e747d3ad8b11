// Commands that read or change a workspace's state refuse a workspace that does not exist unless
// --init (issue 17 point 11): a mistyped --workspace no longer creates a new database and a token
// that no daemon knows.
#include <gtest/gtest.h>

#include "../unit/common/temp_dir.hpp"
#include "support.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

CommandResult kwb_at(const std::string& args, const fs::path& ws, const std::string& env = "") {
  return run_command(env + (env.empty() ? "" : " ") + (bin_dir() / "kwb").string() + " " + args + " --workspace " +
                     shell_quote(ws.string()) + " 2>&1");
}

TEST(WorkspaceCli, AMissingWorkspaceIsRefusedWithoutInit) {
  TempDir dir;
  const fs::path typo = dir / "wokspace";
  const std::vector<std::string> commands = {"token create --role agent", "token list", "token revoke 1", "tuning list",
                                             "tuning export --out " + (dir / "t.json").string(), "calibrate --cpu-only",
                                             "retime vector_add", "export --out " + (dir / "pkg").string()};
  for (const std::string& args : commands) {
    auto r = kwb_at(args, typo);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("workspace " + typo.string() + ": does not exist: not a workspace yet"), std::string::npos)
        << args << ": " << r.out;
    EXPECT_NE(r.out.find("pass --init to create one there"), std::string::npos) << args << ": " << r.out;
    EXPECT_FALSE(fs::exists(typo)) << args << " created the mistyped workspace";
  }
  EXPECT_FALSE(fs::exists(dir / "pkg"));
  EXPECT_FALSE(fs::exists(dir / "t.json"));
}

TEST(WorkspaceCli, AFolderWithoutADatabaseIsNotAWorkspaceAndTheEnvironmentIsNamed) {
  TempDir dir;
  fs::create_directories(dir / "plain");
  auto r = run_command("KWB_WORKSPACE=" + shell_quote((dir / "plain").string()) + " " + (bin_dir() / "kwb").string() +
                       " token list 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("workspace " + (dir / "plain").string() + " (from KWB_WORKSPACE): holds no kwb.db"),
            std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "plain/kwb.db"));
}

TEST(WorkspaceCli, InitCreatesTheWorkspaceAndLaterCommandsUseIt) {
  TempDir dir;
  const fs::path ws = dir / "new";
  auto created = kwb_at("token create --role reviewer --name alice --init", ws);
  ASSERT_EQ(created.exit_code, 0) << created.out;
  EXPECT_TRUE(created.out.starts_with("kwb_")) << created.out;
  EXPECT_TRUE(fs::is_regular_file(ws / "kwb.db"));
  auto listed = kwb_at("token list", ws);
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  EXPECT_NE(listed.out.find("reviewer   alice"), std::string::npos) << listed.out;
}

}  // namespace

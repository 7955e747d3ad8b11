// The bwrap command line: flags, mount order, GPU nodes. Pure; runs nothing.
#include <algorithm>

#include "sandbox_test_util.hpp"

namespace kwb::sandbox::test {
namespace {

using Args = std::vector<std::string>;

// Index of the first occurrence of `seq` as a contiguous run in `args`, or -1.
long find_seq(const Args& args, const Args& seq) {
  auto it = std::search(args.begin(), args.end(), seq.begin(), seq.end());
  return it == args.end() ? -1 : it - args.begin();
}

long last_index_of(const Args& args, const std::string& flag) {
  auto it = std::find(args.rbegin(), args.rend(), flag);
  return it == args.rend() ? -1 : static_cast<long>(args.rend() - it) - 1;
}

Request sample() {
  Request req;
  req.job_dir = "/srv/jobs/42";
  req.argv = {"--looks-like-an-option", "a b", ""};
  req.env = {{"PATH", "/usr/bin"}, {"HOME", "/job"}};
  req.binds = {{"/opt/kwb/kwb-runner", "/kwb/kwb-runner", false}, {"/srv/cache", "/cache", true}};
  req.profile = run_profile();
  return req;
}

TEST(BwrapArgs, IsolationFlags) {
  Args a = bwrap_argv(sample());
  EXPECT_EQ(a.front(), "/usr/bin/bwrap");
  EXPECT_GE(find_seq(a, {"--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"}), 0);
  EXPECT_GE(find_seq(a, {"--die-with-parent"}), 0);
  EXPECT_GE(find_seq(a, {"--new-session"}), 0);
  EXPECT_GE(find_seq(a, {"--uid", "65534", "--gid", "65534"}), 0);
  EXPECT_GE(find_seq(a, {"--ro-bind", "/usr", "/usr"}), 0);
  for (const char* link : {"/lib", "/lib64", "/bin", "/sbin"}) EXPECT_GE(find_seq(a, {link}), 0) << link;
  EXPECT_EQ(find_seq(a, {"/etc"}), -1);
  for (const auto& arg : a) {  // of /etc, only the alternatives' links and the linker's cache
    if (arg.starts_with("/etc")) EXPECT_TRUE(arg == "/etc/alternatives" || arg == "/etc/ld.so.cache") << arg;
  }
  // Kernel knobs read-only after the new /proc is mounted (and before /dev).
  long proc = find_seq(a, {"--proc", "/proc"});
  long sys = find_seq(a, {"--ro-bind-try", "/proc/sys", "/proc/sys"});
  EXPECT_GT(sys, proc);
  EXPECT_GT(find_seq(a, {"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"}), proc);
  EXPECT_GT(find_seq(a, {"--dev", "/dev"}), sys);
  EXPECT_EQ(find_seq(a, {"--share-net"}), -1);
}

TEST(BwrapArgs, EnvironmentIsClearedThenSet) {
  Args a = bwrap_argv(sample());
  long clear = find_seq(a, {"--clearenv"});
  ASSERT_GE(clear, 0);
  long path = find_seq(a, {"--setenv", "PATH", "/usr/bin"});
  long home = find_seq(a, {"--setenv", "HOME", "/job"});
  EXPECT_GT(path, clear);
  EXPECT_GT(home, clear);
  EXPECT_EQ(std::count(a.begin(), a.end(), "--setenv"), 2);
}

TEST(BwrapArgs, JobDirIsTheLastMountAndTheWorkingDir) {
  Request req = sample();
  req.profile.gpu = true;
  Args a = bwrap_argv(req);
  long job = find_seq(a, {"--ro-bind", "/srv/jobs/42", "/job"});  // read-only for runs
  ASSERT_GE(job, 0);
  EXPECT_EQ(find_seq(a, {"--bind", "/srv/jobs/42", "/job"}), -1);
  for (const char* flag : {"--bind", "--ro-bind", "--dev-bind", "--tmpfs", "--proc", "--dev", "--symlink"}) {
    EXPECT_LE(last_index_of(a, flag), job) << flag << " comes after the job dir";
  }
  EXPECT_GE(find_seq(a, {"--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/job"}), job);
}

TEST(BwrapArgs, JobDirIsWritableForCompiles) {
  Request req = sample();
  req.profile = compile_profile();
  Args a = bwrap_argv(req);
  EXPECT_GE(find_seq(a, {"--bind", "/srv/jobs/42", "/job"}), 0);
  EXPECT_EQ(find_seq(a, {"--ro-bind", "/srv/jobs/42", "/job"}), -1);
}

TEST(BwrapArgs, ExtraBindsAreReadOnlyUnlessWritable) {
  Args a = bwrap_argv(sample());
  EXPECT_GE(find_seq(a, {"--ro-bind", "/opt/kwb/kwb-runner", "/kwb/kwb-runner"}), 0);
  EXPECT_GE(find_seq(a, {"--bind", "/srv/cache", "/cache"}), 0);
}

TEST(BwrapArgs, PrivateTmpHasTheProfileSize) {
  Request req = sample();
  req.profile.tmp_bytes = 12345678;
  EXPECT_GE(find_seq(bwrap_argv(req), {"--size", "12345678", "--tmpfs", "/tmp"}), 0);
}

TEST(BwrapArgs, CommandFollowsDoubleDashVerbatim) {
  Args a = bwrap_argv(sample());
  long dash = last_index_of(a, "--");
  ASSERT_GE(dash, 0);
  EXPECT_EQ(Args(a.begin() + dash + 1, a.end()), (Args{"--looks-like-an-option", "a b", ""}));
}

TEST(BwrapArgs, LauncherFdsAreGivenToBwrap) {
  Args plain = bwrap_argv(sample());
  EXPECT_EQ(find_seq(plain, {"--seccomp"}), -1);
  EXPECT_EQ(find_seq(plain, {"--json-status-fd"}), -1);
  Args a = bwrap_argv(sample(), {7, 9, "/dev"});
  EXPECT_GE(find_seq(a, {"--seccomp", "7"}), 0);
  EXPECT_GE(find_seq(a, {"--json-status-fd", "9"}), 0);
  EXPECT_LT(find_seq(a, {"--seccomp", "7"}), last_index_of(a, "--"));
}

TEST(BwrapArgs, NoGpuMeansNoDevicesAndNoSys) {
  TempDir dev;
  write_text(dev / "nvidiactl", "");
  Args a = bwrap_argv(sample(), {-1, -1, dev.path()});
  EXPECT_EQ(find_seq(a, {"--dev-bind"}), -1);
  EXPECT_EQ(find_seq(a, {"/sys"}), -1);
}

TEST(BwrapArgs, GpuBindsExistingNvidiaNodesAndSys) {
  TempDir dev;
  for (const char* name : {"nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1", "nvidia10", "nvidia-modeset", "nvidiafoo"}) {
    write_text(dev / name, "");
  }
  auto nodes = gpu_device_nodes(dev.path());
  std::vector<std::filesystem::path> expected{dev / "nvidiactl", dev / "nvidia-uvm", dev / "nvidia0", dev / "nvidia1",
                                              dev / "nvidia10"};
  EXPECT_EQ(nodes, expected);

  Request req = sample();
  req.profile.gpu = true;
  Args a = bwrap_argv(req, {-1, -1, dev.path()});
  EXPECT_EQ(std::count(a.begin(), a.end(), "--dev-bind"), 5);
  EXPECT_GE(find_seq(a, {"--dev-bind", (dev / "nvidiactl").string(), "/dev/nvidiactl"}), 0);
  EXPECT_GE(find_seq(a, {"--dev-bind", (dev / "nvidia10").string(), "/dev/nvidia10"}), 0);
  EXPECT_EQ(find_seq(a, {"/dev/nvidia-uvm-tools"}), -1);  // absent in the fake /dev
  EXPECT_GE(find_seq(a, {"--ro-bind", "/sys", "/sys"}), 0);
  EXPECT_GT(find_seq(a, {"--dev-bind"}), find_seq(a, {"--dev", "/dev"}));  // inside the new /dev
}

TEST(BwrapArgs, AGpuLaneBindsItsOwnGpuNodeOnly) {
  TempDir dev;
  for (const char* name : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0", "nvidia1", "nvidia10"}) {
    write_text(dev / name, "");
  }
  Request req = sample();
  req.profile.gpu = true;
  req.profile.gpu_minor = 1;
  Args a = bwrap_argv(req, {-1, -1, dev.path()});
  EXPECT_EQ(std::count(a.begin(), a.end(), "--dev-bind"), 4);  // the 3 shared nodes and nvidia1
  EXPECT_GE(find_seq(a, {"--dev-bind", (dev / "nvidia1").string(), "/dev/nvidia1"}), 0);
  EXPECT_GE(find_seq(a, {"--dev-bind", (dev / "nvidiactl").string(), "/dev/nvidiactl"}), 0);
  EXPECT_GE(find_seq(a, {"--dev-bind", (dev / "nvidia-uvm").string(), "/dev/nvidia-uvm"}), 0);
  EXPECT_EQ(find_seq(a, {"/dev/nvidia0"}), -1);
  EXPECT_EQ(find_seq(a, {"/dev/nvidia10"}), -1);
}

TEST(BwrapArgs, ProfilesHaveTheDocumentedDefaults) {
  Profile c = compile_profile();
  EXPECT_EQ(c.name, "compile");
  EXPECT_EQ(c.wall, std::chrono::seconds(60));
  EXPECT_EQ(c.cpu_seconds, 60);
  EXPECT_EQ(c.file_bytes, 256ll << 20);
  EXPECT_EQ(c.tmp_bytes, 512ll << 20);
  EXPECT_EQ(c.output_bytes, 1ll << 20);
  EXPECT_EQ(c.open_files, 256);
  EXPECT_EQ(c.memory_bytes, 2ll << 30);
  EXPECT_EQ(c.max_processes, 64);
  EXPECT_FALSE(c.output_overflow_fails);
  EXPECT_TRUE(c.job_writable);
  Profile r = run_profile();
  EXPECT_EQ(r.name, "run");
  EXPECT_EQ(r.wall, std::chrono::seconds(10));
  EXPECT_EQ(r.cpu_seconds, 30);
  EXPECT_EQ(r.file_bytes, 64ll << 20);
  EXPECT_EQ(r.tmp_bytes, 64ll << 20);
  EXPECT_EQ(r.output_bytes, 64ll << 10);
  EXPECT_EQ(r.open_files, 256);
  EXPECT_EQ(r.memory_bytes, 4ll << 30);
  EXPECT_EQ(r.max_processes, 64);
  EXPECT_TRUE(r.output_overflow_fails);
  EXPECT_FALSE(r.job_writable);
  EXPECT_FALSE(r.gpu);
}

}  // namespace
}  // namespace kwb::sandbox::test

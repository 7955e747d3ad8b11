# Read by ctest after the discovered tests (tests/CMakeLists.txt adds it to TEST_INCLUDE_FILES
# last): the order in which `ctest -j2` starts the long tests (docs/benchmarks/ci.md).
#
# A clean clone has no Testing/Temporary/CTestCostData.txt, so without COST ctest starts tests in
# definition order and the long integration tests (defined after ~700 unit tests) may start last
# and leave one core idle at the end. COST (seconds measured on the 2-core machine) makes them
# start first, longest first. A name that is not defined (e.g. a filtered run) is ignored.
set(kwb_long_tests
  "DecideUnderNoise.IdenticalNeverFasterAlwaysMixedNever|366"
  "DaemonCrash.KillNineWithTwentyInFlightLosesNothing|100"
  "WebUi.ReviewPages|90"
  "SlurmExecutor.AJobPastItsTimeLimitOnItsLastTryIsATimeLimitVerdict|91"
  "SlurmExecutor.DaemonKilledWithTenJobsInFlightReattachesOnRestart|56"
  "SlurmExecutor.HonestAndWrongCandidatesGetTheVerdictsOfTheLocalExecutor|46"
  "ExportPackage.CudaBuildCompilesWhereNvccIs|80"
  "LibraryFlow.WinnersPromoteInOneCommitAndLosersAreRefused|50"
  "LibraryFlow.CiPromoteRevalidatesPendingWinnersAndWritesReports|45"
  "DecideUnderNoise.ABadIncumbentRecordDoesNotKeepAFasterCandidateOutAndRetimeReplacesIt|40"
  "ExportPackage.SeedLibraryBuildsWithCmakeAndEveryFunctionPassesOnTheCpu|34"
  "DaemonApi.ListPagesKeepTheirFilters|33"
  "SpecCheck.TheShippedSpecsPass|31"
  "DaemonApi.SubmitStreamsEventsAndReachesAVerdict|27"
  "DaemonStorage.ALockedDatabaseAnswers503WithRetryAfterAndReadsDoNotWait|25"
  "NvccCompile.CubCompiles|24"
  "DaemonStorage.AFullDiskAnswers507NeverAnIdThatIsNotStoredAndHealthSaysSo|23"
  "LibraryFlow.AutoPromoteCommitsAWinnerBeforeItsDecisionIsVisible|22"
  "DaemonStorage.AnEmptyDatabaseIsRefusedAndKwbRestoreBringsTheBackupBack|21")
foreach(entry ${kwb_long_tests})
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 name)
  list(GET fields 1 cost)
  set_tests_properties(${name} PROPERTIES COST ${cost})
endforeach()

# The tests whose assertions rest on interleaved timing against an incumbent (a winner must be
# found faster, DecideUnderNoise's statistics) or that load the machine most (DecideUnderNoise's
# background loop, DaemonCrash's twenty candidates) never run beside each other: side by side,
# a memory-bound winner timed while the other slot ran DecideUnderNoise's n16M loop read
# 1.4x [0.70, 8.6] against a 10x slower incumbent (session 13), a correct refusal to decide that
# failed the test expecting the winner. Unit tests still fill the other slot.
set(kwb_timing_tests
  DecideUnderNoise.IdenticalNeverFasterAlwaysMixedNever
  DecideUnderNoise.ABadIncumbentRecordDoesNotKeepAFasterCandidateOutAndRetimeReplacesIt
  DaemonCrash.KillNineWithTwentyInFlightLosesNothing
  LibraryFlow.WinnersPromoteInOneCommitAndLosersAreRefused
  LibraryFlow.CiPromoteRevalidatesPendingWinnersAndWritesReports
  LibraryFlow.AutoPromoteCommitsAWinnerBeforeItsDecisionIsVisible
  LibraryFlow.OnePassTimesTheCandidateAgainstAWarmIncumbentAndTheDecisionFollowsTheVerdict
  AgentTuneLoop
  WebUi.ReviewPages)
foreach(name ${kwb_timing_tests})
  set_tests_properties(${name} PROPERTIES RESOURCE_LOCK interleaved_timing)
endforeach()

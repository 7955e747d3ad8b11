// Compiled (never linked) by two ctest tests of tests/CMakeLists.txt:
//  - ResultCannotBeDropped (WILL_FAIL): as is, main() drops a util::Result, which must not compile
//    under the project's -Werror=unused-result (workbench/util/error.hpp);
//  - ResultDroppedWithIgnoreCompiles: with -DKWB_DROP_WITH_IGNORE the same drop goes through
//    util::ignore and must compile, so the first test cannot pass for another reason (a missing
//    include, a flag the compiler does not know).
#include "util/error.hpp"
#include "util/ignore.hpp"

namespace {

kwb::util::Result<int> parse_count(int raw) {
  if (raw < 0) return kwb::util::fail("count", "negative: " + std::to_string(raw));
  return raw;
}

}  // namespace

int main() {
#ifdef KWB_DROP_WITH_IGNORE
  kwb::util::ignore(parse_count(-1), "compile test: the named way to drop a Result");
#else
  parse_count(-1);
#endif
  return 0;
}

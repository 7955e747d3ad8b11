#pragma once
// The CSV that Nsight Compute writes with --csv (docs/profiles.md "What is read"): records of
// quoted fields, the numbers in them (thousands separators, "n/a") and their units. Lines ncu
// writes around the table ("==PROF== ...", "==WARNING== ...", "==ERROR== ...") are not records.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace kwb::eval {

struct CsvRecord {
  int line = 0;  // 1-based line of the text where the record starts
  std::vector<std::string> fields;
};

// The records of `text` (RFC 4180 quoting: "" is a quote inside a quoted field; a quoted field may
// span lines). Empty lines and the lines that start with "==" (ncu's own messages) are skipped
// and kept in `messages`. Fails on a quoted field that never ends, naming its line.
struct CsvText {
  std::vector<CsvRecord> records;
  std::vector<std::string> messages;  // "==ERROR== ..." etc., in order
};
util::Result<CsvText> read_csv(std::string_view text);

// A number as ncu prints it: "1,234.5", "2.0e-05", "87.3"; nullopt for "", "n/a" or anything else.
std::optional<double> ncu_number(std::string_view text);

// The factor that turns a value in `unit` into the base unit: nanoseconds for time ("usecond":
// 1e3, "msecond": 1e6, "second": 1e9), bytes for sizes ("Kbyte": 1e3, "Mbyte": 1e6, ...), and the
// unscaled count for the other units ("Ksector": 1e3). 1 for an unknown or empty unit.
double ncu_unit_scale(std::string_view unit);

}  // namespace kwb::eval

#pragma once
// `zcperf compare BASE NEW`: the subcommand's options and its whole run.
#include <string>

#include "options/option_rows.hpp"

namespace zc {

// --html FILE, one row for a run's options and compare's.
OptionRow html_option(std::string& file);

// argv[0] is "compare"; returns the exit status (0; 1: bad input files; 2: bad options).
int compare_main(int argc, char** argv);

}  // namespace zc

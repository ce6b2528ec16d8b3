#pragma once
// --explain in the human and CSV reports: a side's categories per unit, top functions, per-CPU split,
// and the deltas against the run's baseline path.
#include <ostream>
#include <string>
#include <vector>

#include "protocol/result.hpp"

namespace zc {

// The human report's block for one side ("local"/"remote"), lines without the final newline.
std::vector<std::string> explain_lines(const TestResult& r, const SideResult& s, const char* side);
// "data copy -0.140 us/KB, zero-copy bookkeeping +0.030" for a side's deltas ("" without any).
std::string explain_delta_text(const TestResult& r, const std::vector<std::pair<Category, double>>& delta);
// The CSV columns for one side (prefix "local_"/"remote_"): header and the row's cells.
std::string explain_csv_header(const std::string& prefix);
std::string explain_csv_cells(const TestResult& r, const SideResult& s);
// --explain-stacks: both sides' folded stacks, a line each: "[LABEL;]local;root;...;leaf COUNT".
// "tcp-msgzc stream 64K" (with "/rx-MODE" where the receive mode is not copy): a test in a stacks file.
std::string explain_test_label(const TestResult& r);
void write_folded_stacks(std::ostream& out, const TestResult& r, const std::string& label);

}  // namespace zc

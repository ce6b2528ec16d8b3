#pragma once
// --explain-categories: the rules --explain would use for each function of a kernel, so that a user on
// a new kernel sees what falls to "other kernel" before trusting a figure.
#include <iosfwd>
#include <string>

namespace zc {

// For each text symbol of a kallsyms file (addresses may be hidden: only names are read), one line:
// category, the rule that decides it (name: exact/prefix/contains, file: the source path's prefix,
// module, or none), the function ("name [module]"), and its source file where that decided; then a
// summary of how many functions each kind of rule decides. Throws std::runtime_error when `path`
// cannot be read.
void write_category_rules(std::ostream& out, const std::string& path);

}  // namespace zc

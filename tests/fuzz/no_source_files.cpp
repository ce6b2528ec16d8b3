// The fuzz target decodes messages; it never classifies a kernel function by its source file. explain's
// file rules (common/explain/source_files.cpp: the kernels' embedded, gzip'd function -> file data and zlib)
// stay out of it, and categories.cpp, which the explain decoder links for its category names, finds none.
#include "explain/source_files.hpp"

namespace zc {

bool source_decision(std::string_view, SourceDecision&) { return false; }

}  // namespace zc

#pragma once
// Seed inputs for zcperf_fuzz_protocol: (file name without extension, bytes as they travel).
#include <string>
#include <utility>
#include <vector>

namespace zc::fuzz {

std::vector<std::pair<std::string, std::string>> seed_inputs();
void write_seed_corpus(const std::string& dir);  // DIR/NAME.bin for each seed

}  // namespace zc::fuzz

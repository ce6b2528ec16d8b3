#pragma once
// The tls kinds' command-line options (--tls-version, --tls-cipher, --tls-offload) and their check against
// the run, as one group registered beside the kinds' operations table (paths/tls_ops.cpp).
namespace zc {

struct KindOptionGroup;  // options/kind_options.hpp
const KindOptionGroup& tls_option_group();

}  // namespace zc

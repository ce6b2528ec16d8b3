#pragma once
// The tls kind's command-line options (--tls-version, --tls-cipher, --tls-offload) and their check against
// the run, as one group its module holds (tls/tls_ops.cpp); and which of its operations tables a row runs.
#include <cstdint>

namespace zc {

// A tls row's `table`: who encrypts its records, OpenSSL in the process (tls) or the kernel (ktls, ktls-sendfile,
// whose keys --tls-offload puts on the NIC).
enum : uint8_t { kOpenSslTls = 0, kKernelTls = 1 };

struct KindOptionGroup;  // options/kind_options.hpp
const KindOptionGroup& tls_option_group();

}  // namespace zc

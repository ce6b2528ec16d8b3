#pragma once
// SMC's decline and fallback codes (a connection's fallback reason and its peer's diagnosis, as smc_diag and
// the fallback counters report them) named in our own words: what happened and what to do. The values are
// the kernel's SMC_CLC_DECL_* (net/smc/smc_clc.h, Linux 6.1 and 6.12); a value the table does not know
// prints as hex with "unknown", never as a guess.
#include <cstdint>
#include <string>
#include <string_view>

namespace zc {

// smc_diag_msg's diag_mode (SMC_DIAG_MODE_*, include/uapi/linux/smc_diag.h) and its name.
enum class SmcMode : uint8_t { smcr = 0, fallback = 1, smcd = 2 };
const char* smc_mode_name(uint8_t mode);  // "SMC-R", "TCP fallback", "SMC-D", "unknown mode"

struct SmcCode {
    uint32_t value;
    std::string_view name;     // short: "no SMC device"
    std::string_view meaning;  // a sentence: what it means and what to do
};

// The table's row for `value`, or nullptr.
const SmcCode* smc_code(uint32_t value);
// The code's major class (its top byte, as the kernel groups them: 0x01 resources, 0x02 timeout, 0x03
// configuration, 0x04 synchronisation, 0x05 the peer declined, 0x09 internal error), "" when none.
std::string_view smc_code_class(uint32_t value);
// "0x03030000 no SMC device" (the name only); where the table lacks the value, "0x0303000f unknown (a kind
// of 0x03030000 no SMC device)" when its upper 16 bits are a known code, "0x03ff0000 unknown (configuration
// error class)" when its class is known, "0x7f000001 unknown" otherwise. 0 is "none".
std::string smc_code_label(uint32_t value);
// The label and its sentence: "0x03030000 no SMC device: no RDMA (RoCE) or ISM device serves this route; ...".
std::string smc_code_text(uint32_t value);

}  // namespace zc

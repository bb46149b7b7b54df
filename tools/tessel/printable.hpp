// printable.hpp: making untrusted text safe to print on one line.
#pragma once

#include <string>
#include <string_view>

namespace tessel::cli {

// `text` with every byte that is not printable ASCII (control bytes, DEL, bytes >= 0x80) written
// as \xNN, so that a message quoting its input stays one line of plain text.
std::string printable(std::string_view text);

}  // namespace tessel::cli

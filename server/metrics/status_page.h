#pragma once

// The status page (status_page.html), compiled into sluiced by CMake.

#include <string_view>

namespace sluice::server {

std::string_view StatusPageHtml();

}  // namespace sluice::server

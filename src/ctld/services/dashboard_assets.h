// The web dashboard's files (services/dashboard/: index.html, app.js, style.css),
// compiled into the controller (CMake writes dashboard_assets.cc from
// dashboard_assets.cc.in): no CDN, nothing read from disk at run time.
#pragma once

#include <string_view>

namespace sluice::ctld {

struct DashboardAsset {
  std::string_view body;
  const char* content_type;
};

// The file served at `path`: "/", "/dashboard" and "/dashboard/" are the page; nullptr
// for any other path.
const DashboardAsset* FindDashboardAsset(std::string_view path);

}  // namespace sluice::ctld

// StateStore association records: write, replace, erase, reload.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "storage/state_store.h"

namespace sluice::storage {
namespace {

TEST(AssocRecords, PutReplaceEraseAndReload) {
  char tmpl[] = "/tmp/sluice-assocrec-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  {
    auto store = std::move(StateStore::Open(dir + "/s.db")).value();
    ASSERT_TRUE(store->LoadAssocRecords()->empty());
    ASSERT_TRUE(store->WriteAssocRecords({{"account", "a", "1"}, {"user", "u\x1f" "a", "2"}}, {}).ok());
    ASSERT_TRUE(store->WriteAssocRecords({{"account", "a", "3"}}, {{"user", "u\x1f" "a", ""}}).ok());
  }
  auto store = std::move(StateStore::Open(dir + "/s.db")).value();
  auto recs = store->LoadAssocRecords();
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs->size(), 1u);
  EXPECT_EQ((*recs)[0], (AssocRecord{"account", "a", "3"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::storage

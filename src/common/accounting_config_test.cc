// AccountingStorageType/Host/Port/User/Pass/Loc.
#include <gtest/gtest.h>

#include "common/config.h"

namespace sluice {
namespace {

TEST(AccountingConfig, DefaultIsSqlite) {
  auto c = ParseConfig("ClusterName=c\n", "t.conf");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->accounting.type, "accounting_storage/sqlite");
}

TEST(AccountingConfig, PgsqlSettings) {
  auto c = ParseConfig(
      "ClusterName=c\nAccountingStorageType=accounting_storage/pgsql\n"
      "AccountingStorageHost=/run/pg\nAccountingStoragePort=5433\nAccountingStorageUser=slurm\n"
      "AccountingStoragePass=secret\nAccountingStorageLoc=acct\nAccountingStorageEnforce=limits\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->accounting.type, "accounting_storage/pgsql");
  EXPECT_EQ(c->accounting.host, "/run/pg");
  EXPECT_EQ(c->accounting.port, 5433);
  EXPECT_EQ(c->accounting.user, "slurm");
  EXPECT_EQ(c->accounting.pass, "secret");
  EXPECT_EQ(c->accounting.loc, "acct");
}

TEST(AccountingConfig, SlurmdbdMeansTheBuiltInStore) {
  auto c =
      ParseConfig("ClusterName=c\nAccountingStorageType=accounting_storage/slurmdbd\n", "t.conf");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->accounting.type, "accounting_storage/sqlite");
}

TEST(AccountingConfig, UnknownTypeAndBadPortAreErrors) {
  auto c = ParseConfig("ClusterName=c\nAccountingStorageType=accounting_storage/mysql\n", "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("t.conf:2: "), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("accounting_storage/mysql"), std::string::npos);
  c = ParseConfig("ClusterName=c\nAccountingStoragePort=http\n", "t.conf");
  ASSERT_FALSE(c.ok());
}

}  // namespace
}  // namespace sluice

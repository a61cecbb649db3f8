// AccountingStorage* and StateStorage* Type/Host/Port/User/Pass/Loc; the SlurmctldHost list.
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

TEST(StateStorageConfig, DefaultIsSqliteAndPgsqlTakesItsOwnSettings) {
  auto c = ParseConfig("ClusterName=c\n", "t.conf");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->state_storage.type, "state/sqlite");
  c = ParseConfig(
      "ClusterName=c\nStateStorageType=STATE/PGSQL\nStateStorageHost=db1\n"
      "StateStoragePort=5434\nStateStorageUser=sluice\nStateStoragePass=pw\n"
      "StateStorageLoc=ctld\nAccountingStorageHost=db2\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->state_storage.type, "state/pgsql");
  EXPECT_EQ(c->state_storage.host, "db1");
  EXPECT_EQ(c->state_storage.port, 5434);
  EXPECT_EQ(c->state_storage.user, "sluice");
  EXPECT_EQ(c->state_storage.pass, "pw");
  EXPECT_EQ(c->state_storage.loc, "ctld");
  EXPECT_EQ(c->accounting.host, "db2");  // each database has its own settings
}

TEST(StateStorageConfig, UnknownTypeAndBadPortAreErrors) {
  auto c = ParseConfig("ClusterName=c\nStateStorageType=state/etcd\n", "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("t.conf:2: invalid StateStorageType 'state/etcd'"),
            std::string::npos)
      << c.status().message();
  c = ParseConfig("ClusterName=c\nStateStoragePort=0\n", "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("invalid StateStoragePort '0'"), std::string::npos);
  c = ParseConfig("ClusterName=c\nStateStorageFlavour=x\n", "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown key 'StateStorageFlavour'"), std::string::npos);
}

TEST(ControllersConfig, EverySlurmctldHostInOrderWithTheTimeout) {
  auto c = ParseConfig(
      "ClusterName=c\nSlurmctldHost=ctl1(127.0.0.1)\nSlurmctldHost=ctl2(127.0.0.2)\n"
      "SlurmctldHost=ctl3\nSlurmctldTimeout=7\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto hosts = c->Controllers();
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].name, "ctl1");
  EXPECT_EQ(hosts[0].addr, "127.0.0.1");
  EXPECT_EQ(hosts[1].addr, "127.0.0.2");
  EXPECT_EQ(hosts[2].name, "ctl3");
  EXPECT_EQ(hosts[2].addr, "ctl3");
  EXPECT_EQ(c->ctld_host, "127.0.0.1");  // the primary
  EXPECT_EQ(c->ctld_timeout_s, 7);
  // Without SlurmctldHost: the one default controller; ControlAddr names the primary's address.
  c = ParseConfig("ClusterName=c\n", "t.conf");
  ASSERT_EQ(c->Controllers().size(), 1u);
  EXPECT_EQ(c->Controllers()[0].addr, "127.0.0.1");
  c = ParseConfig("ClusterName=c\nSlurmctldHost=ctl1\nControlAddr=10.0.0.9\n", "t.conf");
  EXPECT_EQ(c->Controllers()[0].addr, "10.0.0.9");
}

}  // namespace
}  // namespace sluice

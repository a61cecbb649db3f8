// The controller lease and the fence, on a real PostgreSQL server: one leader at a time,
// epochs that only grow, and a store whose lease moved on writes nothing.
#include "storage/pg_lease.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <pqxx/pqxx>
#include <thread>

#include "storage/pg_state_store.h"
#include "storage/pg_test_db.h"

namespace sluice::storage {
namespace {

class PgLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    pg_ = SharedPgServer(&why);
    if (pg_ == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
    ASSERT_TRUE(ResetControllerTables(pg_).ok());
  }
  std::unique_ptr<PgLease> Lease() {
    auto l = PgLease::Open(pg_->conn_string());
    EXPECT_TRUE(l.ok()) << l.status().message();
    return l.ok() ? std::move(l).value() : nullptr;
  }
  std::unique_ptr<PgStateStore> Store(int64_t epoch) {
    auto s = PgStateStore::Open(pg_->conn_string());
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return nullptr;
    (*s)->FenceWith(epoch);
    return std::move(s).value();
  }
  static WriteBatch OneJob(int64_t id) {
    JobInfo j;
    j.set_job_id(id);
    j.set_state(JOB_PENDING);
    WriteBatch b;
    b.PutJob(j);
    return b;
  }
  acct::PgTestServer* pg_ = nullptr;
};

TEST_F(PgLeaseTest, OneHolderAtATimeAndEpochsGrow) {
  auto a = Lease(), b = Lease();
  ASSERT_TRUE(a && b);
  auto first = a->TryAcquire("ctl1", "127.0.0.1:6817", 60'000);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ(**first, 1);
  auto denied = b->TryAcquire("ctl2", "127.0.0.2:6817", 60'000);
  ASSERT_TRUE(denied.ok());
  EXPECT_FALSE(denied->has_value());
  auto cur = b->Current();
  ASSERT_TRUE(cur.ok());
  EXPECT_EQ(cur->holder, "ctl1");
  EXPECT_EQ(cur->address, "127.0.0.1:6817");
  EXPECT_EQ(cur->epoch, 1);
  EXPECT_TRUE(cur->live);
  EXPECT_TRUE(*a->Renew(1, 60'000));

  ASSERT_TRUE(a->Release(1).ok());  // a hand-over
  auto second = b->TryAcquire("ctl2", "127.0.0.2:6817", 60'000);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ(**second, 2);
  EXPECT_FALSE(*a->Renew(1, 60'000));  // the old leader learns it lost the lease
  EXPECT_TRUE(*b->Renew(2, 60'000));
}

TEST_F(PgLeaseTest, AnExpiredLeaseIsTakenOver) {
  auto a = Lease(), b = Lease();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->TryAcquire("ctl1", "x:1", 300)->has_value());
  EXPECT_FALSE(b->TryAcquire("ctl2", "y:1", 300)->has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  EXPECT_FALSE(b->Current()->live);
  EXPECT_FALSE(*a->Renew(1, 300));  // expired: even its holder may not extend it
  auto taken = b->TryAcquire("ctl2", "y:1", 300);
  ASSERT_TRUE(taken.ok() && taken->has_value());
  EXPECT_EQ(**taken, 2);
}

TEST_F(PgLeaseTest, TheFenceRefusesTheOldLeadersWrites) {
  auto a = Lease(), b = Lease();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->TryAcquire("ctl1", "x:1", 60'000)->has_value());
  auto old_store = Store(1);
  ASSERT_TRUE(old_store);
  ASSERT_TRUE(old_store->Write(OneJob(1)).ok());
  // ctl1 is paused past its lease; ctl2 takes over (here: after a release, to be quick).
  ASSERT_TRUE(a->Release(1).ok());
  ASSERT_EQ(**b->TryAcquire("ctl2", "y:1", 60'000), 2);
  Status st = old_store->Write(OneJob(2));
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("fenced"), std::string::npos) << st.message();
  EXPECT_EQ(old_store->WriteAssocRecords({{"qos", "high", "x"}}, {}).code(),
            Code::kFailedPrecondition);
  auto new_store = Store(2);
  ASSERT_TRUE(new_store);
  auto loaded = new_store->LoadAll();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->jobs.size(), 1u);  // job 2 was never written
  EXPECT_EQ(loaded->jobs[0].job_id(), 1);
  EXPECT_TRUE(new_store->LoadAssocRecords()->empty());
  EXPECT_TRUE(new_store->Write(OneJob(3)).ok());
}

TEST_F(PgLeaseTest, AWriteInFlightHoldsOffATakeover) {
  // The fence reads the lease row FOR SHARE inside the write's transaction: a takeover
  // waits until that write commits, so no write of an old epoch commits after a new one
  // began. Here the write in flight is held open by hand.
  auto a = Lease();
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->TryAcquire("ctl1", "x:1", 60'000)->has_value());
  ASSERT_TRUE(a->Release(1).ok());  // free to take, but not yet taken
  pqxx::connection writer(pg_->conn_string());
  auto tx = std::make_unique<pqxx::work>(writer);
  ASSERT_EQ(tx->exec("SELECT epoch FROM ctld_lease WHERE id = 1 FOR SHARE")[0][0].as<int64_t>(), 1);
  std::atomic<int64_t> taken{0};
  std::thread taker([&] {
    auto l = Lease();
    auto e = l ? l->TryAcquire("ctl2", "y:1", 60'000)
               : Expected<std::optional<int64_t>>(Internal("no lease"));
    taken = e.ok() && e->has_value() ? **e : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_EQ(taken.load(), 0) << "the takeover did not wait for the write in flight";
  tx->commit();
  taker.join();
  EXPECT_EQ(taken.load(), 2);
  auto store = Store(1);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->Write(OneJob(6)).code(), Code::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice::storage

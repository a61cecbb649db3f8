// ReservationBook alone: what it keeps is what the store holds; rolling, conflicts and
// maintenance nodes.
#include "ctld/components/reservation_book.h"

#include <gtest/gtest.h>

#include "storage/memory_state_store.h"

namespace sluice::ctld {
namespace {

ReservationInfo Resv(const std::string& name, int64_t start, int64_t end,
                     std::vector<std::string> nodes, std::vector<std::string> flags = {}) {
  ReservationInfo r;
  r.set_name(name);
  r.set_start_time(start);
  r.set_end_time(end);
  for (auto& n : nodes) r.add_nodes(n);
  for (auto& f : flags) r.add_flags(f);
  return r;
}

TEST(ReservationBook, KeepsOnlyWhatTheStoreWrote) {
  storage::MemoryStateStore store;
  ReservationBook book(&store);
  ASSERT_TRUE(book.Put(Resv("a", 100, 200, {"n1"})).ok());
  store.FailNextWrites(1);
  EXPECT_FALSE(book.Put(Resv("b", 100, 200, {"n2"})).ok());
  EXPECT_EQ(book.Find("b"), nullptr);
  store.FailNextWrites(1);
  EXPECT_FALSE(book.Erase("a").ok());
  EXPECT_NE(book.Find("a"), nullptr);
  ReservationBook reloaded(&store);
  reloaded.Load(store.LoadAll()->reservations);
  ASSERT_EQ(reloaded.all().size(), 1u);
  EXPECT_EQ(reloaded.Find("a")->nodes(0), "n1");
  ASSERT_TRUE(book.Erase("a").ok());
  EXPECT_TRUE(store.LoadAll()->reservations.empty());
}

TEST(ReservationBook, RollRepeatsDailyAndWeeklyAndDropsTheRest) {
  storage::MemoryStateStore store;
  ReservationBook book(&store);
  ASSERT_TRUE(book.Put(Resv("daily", 1000, 2000, {"n1"}, {"DAILY"})).ok());
  ASSERT_TRUE(book.Put(Resv("weekly", 1000, 2000, {"n2"}, {"WEEKLY"})).ok());
  ASSERT_TRUE(book.Put(Resv("once", 1000, 2000, {"n3"})).ok());
  ASSERT_TRUE(book.Put(Resv("later", 1000, 90000, {"n4"})).ok());
  book.Roll(2000 + 86400 + 5);  // past the daily's second end too
  EXPECT_EQ(book.Find("once"), nullptr);
  EXPECT_EQ(book.Find("daily")->start_time(), 1000 + 2 * 86400);
  EXPECT_EQ(book.Find("weekly")->start_time(), 1000 + 7 * 86400);
  EXPECT_EQ(book.Find("later")->start_time(), 1000);
  EXPECT_EQ(store.LoadAll()->reservations.size(), 3u);  // the store rolled with it
}

TEST(ReservationBook, ConflictsShareANodeAtTheSameTimeUnlessOverlapIsAllowed) {
  ReservationBook book(nullptr);
  ASSERT_TRUE(book.Put(Resv("a", 100, 200, {"n1", "n2"})).ok());
  EXPECT_TRUE(book.Conflicts(Resv("b", 150, 250, {"n2"})));
  EXPECT_FALSE(book.Conflicts(Resv("b", 200, 300, {"n2"})));  // starts as a ends
  EXPECT_FALSE(book.Conflicts(Resv("b", 150, 250, {"n3"})));  // another node
  EXPECT_FALSE(book.Conflicts(Resv("b", 150, 250, {"n2"}, {"OVERLAP"})));
  EXPECT_FALSE(book.Conflicts(Resv("a", 150, 250, {"n2"})));  // itself, updated
  EXPECT_TRUE(book.NodeReserved("n1", "", 0, 101));
  EXPECT_FALSE(book.NodeReserved("n1", "a", 0, 101));
  EXPECT_FALSE(book.NodeReserved("n1", "", 0, 100));
}

TEST(ReservationBook, MaintNodesOnlyWhileTheReservationIsActive) {
  ReservationBook book(nullptr);
  ASSERT_TRUE(book.Put(Resv("m", 100, 200, {"n1", "n2"}, {"MAINT"})).ok());
  ASSERT_TRUE(book.Put(Resv("plain", 100, 200, {"n3"})).ok());
  EXPECT_TRUE(book.NodesInMaint(99).empty());
  EXPECT_EQ(book.NodesInMaint(150), (std::set<std::string>{"n1", "n2"}));
  EXPECT_TRUE(book.NodesInMaint(200).empty());
  sched::ClusterSnapshot snap;
  book.AddTo(&snap);
  ASSERT_EQ(snap.reservations.size(), 2u);
  EXPECT_TRUE(snap.reservations[0].maint);
  EXPECT_EQ(snap.reservations[0].nodes, (std::vector<std::string>{"n1", "n2"}));
}

}  // namespace
}  // namespace sluice::ctld

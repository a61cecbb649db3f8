#include "rpc/field_copier.h"

#include <gtest/gtest.h>

#include "types.pb.h"

namespace sluice {
namespace {

google::protobuf::FieldMask Mask(std::initializer_list<const char*> paths) {
  google::protobuf::FieldMask m;
  for (const char* p : paths) m.add_paths(p);
  return m;
}

JobInfo FullJob() {
  JobInfo j;
  j.set_job_id(42);
  j.set_state(JOB_RUNNING);
  j.set_reason("None");
  j.set_user("alice");
  j.set_priority(7);
  j.set_cancelled_by(0);  // optional: set to its default value, still present
  j.mutable_spec()->set_name("train");
  j.mutable_spec()->set_partition("gpu");
  j.mutable_spec()->set_script("#!/bin/sh\nsleep 1\n");
  j.mutable_spec()->add_gres_per_node()->set_name("gpu");
  NodeAlloc* a = j.add_alloc();
  a->set_node("n1");
  a->add_gpu_ids(3);
  j.add_alloc()->set_node("n2");
  return j;
}

TEST(FieldCopierTest, EmptyMaskCopiesEverything) {
  auto c = FieldCopier::Build(JobInfo::descriptor(), {});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->copies_everything());
  JobInfo out;
  c->Copy(FullJob(), &out);
  EXPECT_EQ(out.SerializeAsString(), FullJob().SerializeAsString());
}

TEST(FieldCopierTest, CopiesOnlyTheNamedFieldsAndSubfields) {
  auto c = FieldCopier::Build(JobInfo::descriptor(), Mask({"job_id", "spec.name", "alloc"}));
  ASSERT_TRUE(c.ok()) << c.status().message();
  JobInfo out;
  c->Copy(FullJob(), &out);
  JobInfo want;
  want.set_job_id(42);
  want.mutable_spec()->set_name("train");
  *want.mutable_alloc() = FullJob().alloc();
  EXPECT_EQ(out.DebugString(), want.DebugString());
}

TEST(FieldCopierTest, AlwaysPathsAndOverlappingPaths) {
  // "spec" whole after "spec.name": the whole spec; "state" from `always`.
  auto c = FieldCopier::Build(JobInfo::descriptor(), Mask({"spec.name", "spec", "cancelled_by"}),
                              {"state", "spec.partition"});
  ASSERT_TRUE(c.ok());
  JobInfo out;
  c->Copy(FullJob(), &out);
  EXPECT_EQ(out.spec().DebugString(), FullJob().spec().DebugString());
  EXPECT_EQ(out.state(), JOB_RUNNING);
  EXPECT_TRUE(out.has_cancelled_by());  // presence kept for a default value
  EXPECT_EQ(out.job_id(), 0);
  EXPECT_TRUE(out.alloc().empty());
  // An optional field that is not set stays unset; a message not set is not created.
  JobInfo bare, out2;
  bare.set_job_id(1);
  c->Copy(bare, &out2);
  EXPECT_FALSE(out2.has_cancelled_by());
  EXPECT_FALSE(out2.has_spec());
}

TEST(FieldCopierTest, BadPathsAreRefusedByName) {
  auto unknown = FieldCopier::Build(JobInfo::descriptor(), Mask({"job_id", "spec.nmae"}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "Invalid field mask path 'spec.nmae': JobSpec has no field 'nmae'");
  auto through_repeated = FieldCopier::Build(JobInfo::descriptor(), Mask({"alloc.node"}));
  ASSERT_FALSE(through_repeated.ok());
  EXPECT_EQ(through_repeated.status().message(),
            "Invalid field mask path 'alloc.node': 'alloc' is repeated");
  auto through_scalar = FieldCopier::Build(JobInfo::descriptor(), Mask({"user.name"}));
  ASSERT_FALSE(through_scalar.ok());
  EXPECT_EQ(through_scalar.status().message(),
            "Invalid field mask path 'user.name': 'user' is not a message");
}

}  // namespace
}  // namespace sluice

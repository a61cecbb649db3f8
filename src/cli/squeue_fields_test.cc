// squeue asks the controller for the fields it prints (GetJobsRequest.fields): each
// format key's value must be the same from a record that carries only the fields the key
// names as from the whole record. Randomised: every field of the job (and its spec,
// allocations, dependencies, gres) gets random values, for every key, many times.
#include <gtest/gtest.h>

#include <random>

#include "cli/squeue_format.h"
#include "rpc/field_copier.h"

namespace sluice {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

class RandomFill {
 public:
  explicit RandomFill(uint32_t seed) : rng_(seed) {}

  void Fill(Message* m, int depth = 0) {
    const auto* d = m->GetDescriptor();
    const auto* r = m->GetReflection();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (Coin(4)) continue;  // some fields left unset
      if (f->is_repeated()) {
        const int n = Pick(0, 2);
        for (int k = 0; k < n; ++k) AddOne(m, r, f, depth);
      } else {
        SetOne(m, r, f, depth);
      }
    }
  }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Coin(int one_in) { return Pick(1, one_in) == 1; }
  int64_t Number() {
    switch (Pick(0, 3)) {
      case 0:
        return 0;
      case 1:
        return -1;
      case 2:
        return Pick(1, 100);
      default:
        return 1700000000 + Pick(0, 100000);  // a timestamp
    }
  }
  std::string Text() { return Coin(5) ? "" : "v" + std::to_string(Pick(0, 50)); }
  int EnumValue(const FieldDescriptor* f) {
    const auto* e = f->enum_type();
    return e->value(Pick(0, e->value_count() - 1))->number();
  }

  void SetOne(Message* m, const google::protobuf::Reflection* r, const FieldDescriptor* f,
              int depth) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r->SetInt32(m, f, static_cast<int32_t>(Number() % 100000));
      case FieldDescriptor::CPPTYPE_INT64:
        return r->SetInt64(m, f, Number());
      case FieldDescriptor::CPPTYPE_UINT32:
        return r->SetUInt32(m, f, static_cast<uint32_t>(Pick(0, 2000)));
      case FieldDescriptor::CPPTYPE_UINT64:
        return r->SetUInt64(m, f, static_cast<uint64_t>(Pick(0, 2000)));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->SetDouble(m, f, Pick(0, 100) / 10.0);
      case FieldDescriptor::CPPTYPE_FLOAT:
        return r->SetFloat(m, f, static_cast<float>(Pick(0, 100) / 10.0));
      case FieldDescriptor::CPPTYPE_BOOL:
        return r->SetBool(m, f, Coin(2));
      case FieldDescriptor::CPPTYPE_ENUM:
        return r->SetEnumValue(m, f, EnumValue(f));
      case FieldDescriptor::CPPTYPE_STRING:
        return r->SetString(m, f, Text());
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth < 3) Fill(r->MutableMessage(m, f), depth + 1);
        return;
    }
  }

  void AddOne(Message* m, const google::protobuf::Reflection* r, const FieldDescriptor* f,
              int depth) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r->AddInt32(m, f, Pick(0, 64));
      case FieldDescriptor::CPPTYPE_INT64:
        return r->AddInt64(m, f, Number());
      case FieldDescriptor::CPPTYPE_UINT32:
        return r->AddUInt32(m, f, static_cast<uint32_t>(Pick(0, 64)));
      case FieldDescriptor::CPPTYPE_UINT64:
        return r->AddUInt64(m, f, static_cast<uint64_t>(Pick(0, 64)));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->AddDouble(m, f, Pick(0, 100) / 10.0);
      case FieldDescriptor::CPPTYPE_FLOAT:
        return r->AddFloat(m, f, static_cast<float>(Pick(0, 100) / 10.0));
      case FieldDescriptor::CPPTYPE_BOOL:
        return r->AddBool(m, f, Coin(2));
      case FieldDescriptor::CPPTYPE_ENUM:
        return r->AddEnumValue(m, f, EnumValue(f));
      case FieldDescriptor::CPPTYPE_STRING:
        return r->AddString(m, f, "node" + std::to_string(Pick(1, 20)));
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth < 3) Fill(r->AddMessage(m, f), depth + 1);
        return;
    }
  }

  std::mt19937 rng_;
};

// Every key squeue accepts, by letter and by -O name.
std::vector<std::string> AllKeys() {
  std::vector<std::string> keys;
  for (const char* k :
       {"a", "A", "b", "B", "c", "C", "d", "D", "e", "E", "f", "F", "g", "G", "h", "i",
        "j", "k", "K", "l", "L", "m", "M", "n", "N", "o", "O", "p", "P", "q", "Q", "r",
        "R", "S", "t", "T", "u", "U", "v", "V", "w", "W", "x", "X", "y", "Y", "z", "Z"}) {
    keys.push_back(k);
  }
  for (const char* k :
       {"tres-alloc", "stdout", "stderr", "stdin", "exitcode", "restartcnt", "cpus-per-task"}) {
    keys.push_back(k);
  }
  return keys;
}

TEST(SqueueFieldsTest, EveryKeyPrintsTheSameFromTheFieldsItAsksFor) {
  const int64_t now = 1700050000;
  for (const std::string& key : AllKeys()) {
    std::vector<FormatField> fields(1);
    fields[0].key = key;
    ASSERT_TRUE(ValidateSqueueFields(&fields).ok()) << key;
    google::protobuf::FieldMask mask;
    for (const std::string& p : SqueueFieldPaths(fields)) mask.add_paths(p);
    Expected<FieldCopier> copier = FieldCopier::Build(JobInfo::descriptor(), mask);
    ASSERT_TRUE(copier.ok()) << key << ": " << copier.status().message();
    RandomFill fill(static_cast<uint32_t>(std::hash<std::string>()(key)));
    for (int i = 0; i < 400; ++i) {
      JobInfo full, masked;
      fill.Fill(&full);
      copier->Copy(full, &masked);
      ASSERT_EQ(SqueueValue(fields[0].key, masked, now), SqueueValue(fields[0].key, full, now))
          << "key " << key << " reads a field it does not ask for; job:\n"
          << full.DebugString();
    }
  }
}

TEST(SqueueFieldsTest, TheDefaultFormatAsksForFewFields) {
  auto fields = ParsePercentFormat(kSqueueDefaultFormat);
  ASSERT_TRUE(fields.ok());
  ASSERT_TRUE(ValidateSqueueFields(&*fields).ok());
  std::vector<std::string> paths = SqueueFieldPaths(*fields);
  EXPECT_EQ(paths, (std::vector<std::string>{"alloc",
                                             "array_job_id",
                                             "array_task_id",
                                             "array_task_str",
                                             "array_throttle",
                                             "end_time",
                                             "het_job_id",
                                             "het_job_offset",
                                             "job_id",
                                             "num_nodes",
                                             "planned_start",
                                             "priority",
                                             "reason",
                                             "spec.name",
                                             "spec.partition",
                                             "start_time",
                                             "state",
                                             "stopped",
                                             "uid",
                                             "user"}));
}

}  // namespace
}  // namespace sluice

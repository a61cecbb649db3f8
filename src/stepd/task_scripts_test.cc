#include "stepd/task_scripts.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(TaskScripts, PrologOutputExportsUnsetsAndPrints) {
  std::vector<std::string> env = {"PATH=/bin", "DISPLAY=:0", "TEST=old"};
  std::string printed;
  ApplyTaskPrologOutput(
      "print HEADER\nexport TEST=prolog_qa\nunset DISPLAY\nnoise line\nexport =bad\n"
      "export NEW=a=b\nprint two words\n",
      &env, &printed);
  EXPECT_EQ(printed, "HEADER\ntwo words\n");
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "TEST=prolog_qa", "NEW=a=b"}));
}

}  // namespace
}  // namespace sluice

import base from "/work/main/vitest.config.ts";
import { defineConfig, mergeConfig } from "vitest/config";
export default mergeConfig(base, defineConfig({ test: { execArgv: ["--cpu-prof", "--cpu-prof-dir=/tmp/cpuprof"] } }));

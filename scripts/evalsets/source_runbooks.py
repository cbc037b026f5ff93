"""Source of runbooks.jsonl: questions over the prometheus-operator/runbooks markdown (see README.md for the commit).

    python scripts/evalsets/source_runbooks.py [--corpus /work/evaldata/prometheus-runbooks]
    python scripts/evalsets/check_sets.py runbooks.jsonl

must_contain was written from the gold lines, before kb was run on any question.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/evaldata/prometheus-runbooks")
R = "content/runbooks/"

Q: list[tuple] = [
    # ---------------- how do I (command) ----------------
    ("en", "conceptual", "howto", "How do I defragment the etcd database?",
     [(R + "etcd/etcdBackendQuotaLowSpace.md", "$ etcdctl defrag"), (R + "etcd/etcdGRPCRequestsSlow.md", "$ etcdctl defrag"),
      (R + "etcd/etcdHighFsyncDurations.md", "$ etcdctl defrag")], ["etcdctl defrag"]),
    ("en", "conceptual", "howto", "how can I see the DB size of each etcd endpoint",
     [(R + "etcd/etcdBackendQuotaLowSpace.md", "$ etcdctl endpoint status -w table")], ["etcdctl endpoint status -w table"]),
    ("en", "conceptual", "howto", "The kubelet is down and I have SSH to the node. How do I read its logs?",
     [(R + "kubernetes/KubeletDown.md", "$ journalctl -b -f -u kubelet.service")], ["journalctl -b -f -u kubelet.service"]),
    ("en", "conceptual", "howto", "How do I check the RAID array state on a node?",
     [(R + "node/NodeRAIDDegraded.md", "$ cat /proc/mdstat")], ["cat /proc/mdstat"]),
    ("en", "conceptual", "howto", "How do I validate alertmanager.yaml syntax?",
     [(R + "alertmanager/AlertmanagerFailedReload.md", "Running [amtool check-config alertmanager.yaml]")], ["amtool check-config alertmanager.yaml"]),
    ("en", "conceptual", "howto", "how do I see why alertmanager failed to reload its config?",
     [(R + "alertmanager/AlertmanagerFailedReload.md", "$ kubectl logs sts/alertmanager-main -c config-reloader")],
     ["kubectl logs sts/alertmanager-main -c config-reloader"]),
    ("en", "conceptual", "howto", "How do I grow a PVC that is filling up?",
     [(R + "kubernetes/KubePersistentVolumeFillingUp.md", "$ kubectl -n <my-namespace> edit pvc <my-pvc>", "edit `.spec.resources.requests.storage`")],
     ["edit pvc", ".spec.resources.requests.storage"]),
    ("en", "conceptual", "howto", "How can I check inode usage on a node's mount point?",
     [(R + "node/NodeFilesystemFilesFillingUp.md", "$ oc debug \"node/$NODE_NAME\"", "$ df -hi \"/host/$MOUNT_POINT\"")], ["df -hi"]),
    ("en", "conceptual", "howto", "How do I check etcd member health?",
     [(R + "etcd/etcdMembersDown.md", "$ etcdctl endpoint health -w table"), (R + "etcd/etcdInsufficientMembers.md", "$ etcdctl endpoint health -w table")],
     ["etcdctl endpoint health -w table"]),
    ("en", "exact", "howto", "KubeAPIDown: what commands check the apiserver pods?",
     [(R + "kubernetes/KubeAPIDown.md", "$ kubectl cluster-info", "$ kubectl -n kube-system logs -l 'component=kube-apiserver'")],
     ["kubectl -n kube-system logs -l 'component=kube-apiserver'"]),
    # ---------------- lookups ----------------
    ("en", "exact", "lookup", "At what percentage of free space does NodeFilesystemAlmostOutOfSpace go critical?",
     [(R + "node/NodeFilesystemAlmostOutOfSpace.md", "`warning` level at 5% space left")], ["3%"]),
    ("en", "exact", "lookup", "TargetDown fires when what share of targets are unreachable?",
     [(R + "general/TargetDown.md", "It fires when at least 10% of scrape targets")], ["10%"]),
    ("en", "exact", "lookup", "When does etcdBackendQuotaLowSpace fire?",
     [(R + "etcd/etcdBackendQuotaLowSpace.md", "This alert fires when the total existing DB size exceeds 95%")], ["95%"]),
    ("en", "exact", "lookup", "Which metric holds the etcd DB quota size?",
     [(R + "etcd/etcdBackendQuotaLowSpace.md", "`etcd_mvcc_db_total_size_in_bytes`, and the DB quota size is defined by", "`etcd_server_quota_backend_bytes`.")],
     ["etcd_server_quota_backend_bytes"]),
    ("en", "exact", "lookup", "file descriptor alert thresholds",
     [(R + "node/NodeFileDescriptorLimit.md", "a `warning` level alert at greater than 70% usage", "and a `critical` level alert at greater than 90% usage.")],
     ["70%", "90%"]),
    ("en", "exact", "lookup", "How long must a pod be non-ready before KubePodNotReady fires?",
     [(R + "kubernetes/KubePodNotReady.md", "Pod has been in a non-ready state for more than 15 minutes.")], ["15 minutes"]),
    ("en", "exact", "lookup", "What is the default path of alertmanager.yaml?",
     [(R + "alertmanager/AlertmanagerFailedReload.md", "You can also verify directly `alertmanager.yaml` file")], ["/etc/alertmanager/config/alertmanager.yaml"]),
    # ---------------- explain ----------------
    ("en", "conceptual", "explain", "What is the Watchdog alert for?",
     [(R + "general/Watchdog.md", "This is an alert meant to ensure that the entire alerting pipeline is functional.")],
     ["entire alerting pipeline is functional"]),
    ("en", "conceptual", "explain", "Should I raise CPU limits when CPUThrottlingHigh fires?",
     [(R + "kubernetes/CPUThrottlingHigh.md", "User shouldn't increase CPU limits unless the application is behaving")],
     ["shouldn't increase CPU limits"]),
    ("en", "conceptual", "explain", "what happens when the etcd DB exceeds its quota?",
     [(R + "etcd/etcdBackendQuotaLowSpace.md", "In case the DB size exceeds the DB quota, no writes can be performed anymore on")],
     ["no writes can be performed"]),
    # ---------------- comparisons ----------------
    ("en", "conceptual", "comparison", "NodeFilesystemAlmostOutOfSpace vs NodeFilesystemSpaceFillingUp — how do they differ?",
     [(R + "node/NodeFilesystemAlmostOutOfSpace.md", "it uses simple static thresholds"),
      (R + "node/NodeFilesystemSpaceFillingUp.md", "extrapolation")],
     ["static thresholds", "extrapolation"]),
    ("en", "conceptual", "comparison", "Difference between NodeClockSkewDetected and NodeClockNotSynchronising?",
     [(R + "node/NodeClockSkewDetected.md", "Clock skew detected."), (R + "node/NodeClockNotSynchronising.md", "Clock not synchronising.")],
     ["Clock skew detected", "Clock not synchronising"]),
    # ---------------- which runbooks mention / file discovery ----------------
    ("en", "file_discovery", "mention", "Which runbooks mention DeadMansSnitch?",
     [(R + "general/Watchdog.md", "DeadMansSnitch")], [R + "general/Watchdog.md"]),
    ("en", "file_discovery", "mention", "which runbooks use journalctl?",
     [(R + "kubernetes/KubeletDown.md", "$ journalctl -b -f -u kubelet.service")], [R + "kubernetes/KubeletDown.md"]),
    ("en", "file_discovery", "file", "Where is the guide for adding a new runbook?",
     [("content/docs/add-runbook.md", 1)], ["content/docs/add-runbook.md"]),
    ("en", "file_discovery", "file", "Which file is the runbook for KubeHpaMaxedOut?",
     [(R + "kubernetes/KubeHpaMaxedOut.md", 1, 10)], [R + "kubernetes/KubeHpaMaxedOut.md"]),
    # ---------------- unanswerable (plausible; the runbooks do not say, or say TODO) ----------------
    ("en", "conceptual", "unanswerable", "What command removes dangling container images on a node?", [], []),
    ("en", "conceptual", "unanswerable", "How do I migrate PVC data to a new, larger volume step by step?", [], []),
    ("en", "conceptual", "unanswerable", "How do I restore etcd from a snapshot?", [], []),
    ("en", "exact", "unanswerable", "What is the default scrape interval for kube-state-metrics?", [], []),
    ("en", "conceptual", "unanswerable", "How do I rotate the Grafana admin password?", [], []),
    ("en", "conceptual", "unanswerable", "How do I diagnose NodeClockNotSynchronising with chronyc?", [], []),
    ("en", "exact", "unanswerable", "How many etcd members should a production cluster have, 5 or 7?", [], []),
    ("en", "conceptual", "unanswerable", "How do I silence an alert with amtool for two hours?", [], []),
    # ---------------- Chinese questions over the English runbooks ----------------
    ("zh", "conceptual", "howto", "怎么对 etcd 做碎片整理？",
     [(R + "etcd/etcdBackendQuotaLowSpace.md", "$ etcdctl defrag"), (R + "etcd/etcdGRPCRequestsSlow.md", "$ etcdctl defrag"),
      (R + "etcd/etcdHighFsyncDurations.md", "$ etcdctl defrag")], ["etcdctl defrag"]),
    ("zh", "conceptual", "howto", "如何查看 kubelet 日志？",
     [(R + "kubernetes/KubeletDown.md", "$ journalctl -b -f -u kubelet.service")], ["journalctl -b -f -u kubelet.service"]),
    ("zh", "exact", "lookup", "TargetDown 告警阈值是多少？",
     [(R + "general/TargetDown.md", "It fires when at least 10% of scrape targets")], ["10%"]),
    ("zh", "conceptual", "explain", "Watchdog 告警有什么用？",
     [(R + "general/Watchdog.md", "This is an alert meant to ensure that the entire alerting pipeline is functional.")],
     ["alerting pipeline"]),
    ("zh", "conceptual", "unanswerable", "如何升级 Prometheus Operator 的版本？", [], []),
    ("zh", "conceptual", "unanswerable", "Loki 日志告警怎么配置？", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "rb", Q, HERE / "runbooks.jsonl")


if __name__ == "__main__":
    raise SystemExit(main())

import sys, statistics, collections
d=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    parts=[p.strip() for p in l.split('|')]
    r, prog = parts[0].split(' ',1)
    cell=parts[1]
    f=parts[2].split()
    v=dict(zip(f[0::2], map(float,f[1::2])))
    d[(prog,int(r))][cell]=v
progs=sorted(set(p for p,_ in d))
pairs=[("pcprof 1 kHz","perf -F 1000 dwarf"),("pcprof 1 kHz","before 1 kHz"),("before 1 kHz","perf -F 1000 dwarf")]
for prog in progs:
    rounds=sorted(r for p,r in d if p==prog)
    for a,b in pairs:
        xs=[d[(prog,r)][a]['cpu']/d[(prog,r)][b]['cpu'] for r in rounds if a in d[(prog,r)] and b in d[(prog,r)] and d[(prog,r)][b]['cpu']>0]
        if xs:
            print("%s: %s / %s CPU paired median %.3f (%.3f-%.3f), %s dearer in %d of %d" % (prog,a,b,statistics.median(xs),min(xs),max(xs),a,sum(x>1 for x in xs),len(xs)))
    for a in ["pcprof 1 kHz","before 1 kHz","perf -F 1000 dwarf","pcprof 1 kHz no-stacks"]:
        xs=[(d[(prog,r)][a]['rss']-d[(prog,r)]['none']['rss']) for r in rounds if a in d[(prog,r)]]
        if xs: print("   %s: RSS growth KiB median %.0f (%.0f-%.0f)"%(a,statistics.median(xs),min(xs),max(xs)))

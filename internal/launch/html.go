package launch

import (
	"encoding/json"
	"os"
	"sort"
	"strings"

	"github.com/mpigo/mpigo/internal/prof"
)

// htmlEvents bounds the timeline events the page carries: past it the shortest are
// left out (trace.json has them all), so that the page stays quick to open.
const htmlEvents = 200000

type htmlRank struct {
	Rank  int       `json:"rank"`
	Host  string    `json:"host"`
	Wall  float64   `json:"wall"`
	MPI   float64   `json:"mpi"`
	Calls []float64 `json:"calls"` // seconds per call, indexed like pageData.Calls
}

type pageData struct {
	N       int         `json:"n"`
	Calls   []string    `json:"calls"`
	Kinds   []string    `json:"kinds"`
	Ranks   []*htmlRank `json:"ranks"`
	Bytes   [][]uint64  `json:"bytes"` // every byte from rank i to rank j
	Msgs    [][]uint64  `json:"msgs"`
	Coll    [][]uint64  `json:"coll"` // of them the collectives' bytes
	RMA     [][]uint64  `json:"rma"`  // and the one-sided operations' on node memory
	RMAOps  [][]uint64  `json:"rmaOps"`
	Events  [][][]int64 `json:"events"` // per rank: [start ns, dur ns, call, bytes, peer]
	Dropped int         `json:"dropped"`
	Summary string      `json:"summary"`
}

func (p *picture) writeHTML(name, summary string) error {
	d := pageData{N: p.n, Summary: summary}
	for c := prof.Call(0); c < prof.NumCalls; c++ {
		d.Calls = append(d.Calls, c.String())
		d.Kinds = append(d.Kinds, c.Kind().String())
	}
	for r, pr := range p.ranks {
		if pr == nil {
			d.Ranks = append(d.Ranks, nil)
			continue
		}
		hr := &htmlRank{Rank: r, Host: pr.Host, Wall: pr.Wall, MPI: pr.MPI, Calls: make([]float64, prof.NumCalls)}
		for _, c := range pr.Calls {
			hr.Calls[prof.CallNamed(c.Call)] += c.Ns / 1e9
		}
		d.Ranks = append(d.Ranks, hr)
	}
	m := p.matrix()
	d.Bytes, d.Msgs, d.Coll, d.RMA, d.RMAOps = m.bytes, m.msgs, m.collBytes, m.rmaBytes, m.rmaOps
	// The shortest events go first when there are too many.
	total := 0
	for _, ev := range p.events {
		total += len(ev)
	}
	var cut int64 = -1
	if total > htmlEvents {
		durs := make([]int64, 0, total)
		for _, ev := range p.events {
			for _, e := range ev {
				durs = append(durs, e.Dur)
			}
		}
		sort.Slice(durs, func(i, j int) bool { return durs[i] > durs[j] })
		cut = durs[htmlEvents-1]
	}
	d.Events = make([][][]int64, p.n)
	for r, ev := range p.events {
		d.Events[r] = [][]int64{}
		for _, e := range ev {
			if e.Dur < cut || (e.Dur == cut && total-d.Dropped > htmlEvents) {
				d.Dropped++
				continue
			}
			d.Events[r] = append(d.Events[r], []int64{e.Start, e.Dur, int64(e.Call), e.Bytes, int64(e.Peer)})
		}
	}
	b, err := json.Marshal(d) // escapes <, > and &, so it cannot end the script element
	if err != nil {
		return err
	}
	page := strings.Replace(pageHTML, "/*DATA*/", string(b), 1)
	return os.WriteFile(name, []byte(page), 0o644)
}

// pageHTML is the page: no network access, everything drawn by the script below on
// canvases. The body's data-status says "ok" once everything is drawn, or the error.
const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mpigo profile</title>
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 6px}
.row{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
canvas{border:1px solid #ccc;background:#fff}
#tip{position:fixed;pointer-events:none;background:#ffe;border:1px solid #999;padding:3px 6px;font-size:12px;display:none}
pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:360px;font-size:12px}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
</style></head>
<body data-status="loading">
<h1>mpigo profile</h1>
<div id="head"></div>
<div class="row">
<div><h2>Communication matrix (bytes moved, row = from, column = to: messages, node collectives, one-sided)</h2><canvas id="matrix" width="420" height="420"></canvas></div>
<div><h2>Time per rank (MPI by call, and outside MPI)</h2><canvas id="bars" width="640" height="420"></canvas><div class="legend" id="legend"></div></div>
</div>
<h2>Timeline (drag to zoom, double-click to reset)</h2>
<canvas id="timeline" width="1100" height="300"></canvas>
<h2>Summary</h2><pre id="summary"></pre>
<div id="tip"></div>
<script type="application/json" id="data">/*DATA*/</script>
<script>
"use strict";
(function(){
try{
const D=JSON.parse(document.getElementById("data").textContent);
const kindColor={send:"#3b7dd8",recv:"#2aa198",wait:"#d33682",collective:"#e08a00",start:"#859900",other:"#888"};
const palette=["#3b7dd8","#e08a00","#2aa198","#d33682","#859900","#6c71c4","#cb4b16","#268bd2","#b58900","#dc322f","#5f8f3f","#9f5f9f"];
const callColor=i=>palette[i%palette.length];
const tip=document.getElementById("tip");
function showTip(e,t){tip.style.display="block";tip.style.left=(e.clientX+12)+"px";tip.style.top=(e.clientY+12)+"px";tip.textContent=t;}
function hideTip(){tip.style.display="none";}
function fmtB(b){if(b>=1<<30)return (b/(1<<30)).toFixed(1)+" GiB";if(b>=1<<20)return (b/(1<<20)).toFixed(1)+" MiB";if(b>=1024)return (b/1024).toFixed(1)+" KiB";return b+" B";}
function fmtT(ns){if(ns>=1e9)return (ns/1e9).toFixed(3)+" s";if(ns>=1e6)return (ns/1e6).toFixed(3)+" ms";if(ns>=1e3)return (ns/1e3).toFixed(2)+" us";return ns+" ns";}
const present=D.ranks.filter(r=>r);
document.getElementById("head").textContent=D.n+" ranks; "+present.length+" wrote a profile"+(D.dropped?("; "+D.dropped+" shortest events left out of this page (trace.json has them)"):"");
document.getElementById("summary").textContent=D.summary;

// Matrix heat map: log scale of bytes, white to dark red.
(function(){
const c=document.getElementById("matrix"),g=c.getContext("2d"),n=D.n,pad=30,sz=c.width-pad-4,cell=sz/n;
let mx=0;for(const row of D.bytes)for(const v of row)mx=Math.max(mx,v);
g.fillStyle="#fff";g.fillRect(0,0,c.width,c.height);
for(let i=0;i<n;i++)for(let j=0;j<n;j++){const v=D.bytes[i][j];let t=v>0&&mx>0?Math.log(1+v)/Math.log(1+mx):0;
 g.fillStyle=v>0?"rgb("+Math.round(255-t*120)+","+Math.round(230-t*230)+","+Math.round(220-t*220)+")":"#f4f4f4";
 g.fillRect(pad+j*cell,pad+i*cell,Math.max(cell-(n<=32?1:0),1),Math.max(cell-(n<=32?1:0),1));}
g.fillStyle="#222";g.font="11px sans-serif";const step=Math.ceil(n/16);
for(let i=0;i<n;i+=step){g.fillText(String(i),2,pad+i*cell+cell/2+4);g.fillText(String(i),pad+i*cell+1,pad-6);}
c.addEventListener("mousemove",e=>{const b=c.getBoundingClientRect(),x=e.clientX-b.left-pad,y=e.clientY-b.top-pad,j=Math.floor(x/cell),i=Math.floor(y/cell);
 if(i>=0&&j>=0&&i<n&&j<n)showTip(e,"rank "+i+" -> rank "+j+": "+fmtB(D.bytes[i][j])+" in "+D.msgs[i][j]+" messages and operations (point-to-point "+fmtB(D.bytes[i][j]-D.coll[i][j]-D.rma[i][j])+", collective "+fmtB(D.coll[i][j])+", one-sided "+fmtB(D.rma[i][j])+" in "+D.rmaOps[i][j]+" operations)");else hideTip();});
c.addEventListener("mouseleave",hideTip);
})();

// Per-rank bars: MPI time stacked by call, then time outside MPI in grey.
(function(){
const c=document.getElementById("bars"),g=c.getContext("2d"),n=D.n,left=40,top=10,h=c.height-40,w=c.width-left-10;
g.fillStyle="#fff";g.fillRect(0,0,c.width,c.height);
let mx=0;for(const r of D.ranks)if(r)mx=Math.max(mx,r.wall,r.mpi);if(mx<=0)mx=1;
const bw=w/n,used=new Set();
for(let i=0;i<n;i++){const r=D.ranks[i];if(!r)continue;let y=top+h;
 r.calls.forEach((s,k)=>{if(s<=0)return;const hh=s/mx*h;g.fillStyle=callColor(k);g.fillRect(left+i*bw,y-hh,Math.max(bw-1,1),hh);y-=hh;used.add(k);});
 const out=Math.max(r.wall-r.mpi,0)/mx*h;g.fillStyle="#ccc";g.fillRect(left+i*bw,y-out,Math.max(bw-1,1),out);}
g.strokeStyle="#222";g.beginPath();g.moveTo(left,top);g.lineTo(left,top+h);g.lineTo(left+w,top+h);g.stroke();
g.fillStyle="#222";g.font="11px sans-serif";g.fillText(mx.toPrecision(3)+" s",2,top+8);g.fillText("0",left-10,top+h);
const step=Math.ceil(n/16);for(let i=0;i<n;i+=step)g.fillText(String(i),left+i*bw+bw/2-3,top+h+14);
g.fillText("rank",left+w/2,top+h+28);
const lg=document.getElementById("legend");[...used].sort((a,b)=>a-b).forEach(k=>{const s=document.createElement("span");s.innerHTML="<i style='background:"+callColor(k)+"'></i>"+D.calls[k];lg.appendChild(s);});
const s=document.createElement("span");s.innerHTML="<i style='background:#ccc'></i>outside MPI";lg.appendChild(s);
c.addEventListener("mousemove",e=>{const b=c.getBoundingClientRect(),i=Math.floor((e.clientX-b.left-left)/bw),r=D.ranks[i];
 if(r){let best="";let bs=0;r.calls.forEach((s,k)=>{if(s>bs){bs=s;best=D.calls[k];}});showTip(e,"rank "+i+": "+r.mpi.toFixed(3)+" s in MPI of "+r.wall.toFixed(3)+" s"+(best?", most in "+best:""));}else hideTip();});
c.addEventListener("mouseleave",hideTip);
})();

// Timeline: one track per rank, calls coloured by kind (collectives orange, waits magenta).
(function(){
const c=document.getElementById("timeline"),g=c.getContext("2d"),n=D.n,left=50,top=6;
const trackH=Math.max(2,Math.min(24,Math.floor(600/n)));c.height=top+n*trackH+24;
let t0=Infinity,t1=-Infinity;for(const ev of D.events)for(const e of ev){t0=Math.min(t0,e[0]);t1=Math.max(t1,e[0]+e[1]);}
if(!isFinite(t0)){t0=0;t1=1;}
let v0=t0,v1=t1;const w=c.width-left-10;
function draw(){g.fillStyle="#fff";g.fillRect(0,0,c.width,c.height);const k=w/Math.max(v1-v0,1);
 for(let r=0;r<n;r++){const y=top+r*trackH;g.fillStyle=r%2?"#fafafa":"#f0f0f0";g.fillRect(left,y,w,trackH);
  for(const e of D.events[r]){const a=e[0],b=e[0]+e[1];if(b<v0||a>v1)continue;const x0=left+Math.max(a-v0,0)*k,x1=left+Math.min(b-v0,v1-v0)*k;
   g.fillStyle=kindColor[D.kinds[e[2]]]||"#888";g.fillRect(x0,y+1,Math.max(x1-x0,0.5),Math.max(trackH-2,1));}}
 g.fillStyle="#222";g.font="11px sans-serif";const step=Math.ceil(n*12/(n*trackH))||1;
 for(let r=0;r<n;r+=step)g.fillText("rank "+r,2,top+r*trackH+Math.min(trackH,12));
 g.fillText(fmtT(0),left,top+n*trackH+14);const span=fmtT(v1-v0);g.fillText("+"+span,left+w-g.measureText("+"+span).width,top+n*trackH+14);}
draw();
let drag=null;
c.addEventListener("mousedown",e=>{drag=e.offsetX;});
c.addEventListener("mouseup",e=>{if(drag!==null&&Math.abs(e.offsetX-drag)>4){const k=(v1-v0)/w,a=v0+(Math.min(drag,e.offsetX)-left)*k,b=v0+(Math.max(drag,e.offsetX)-left)*k;v0=Math.max(a,t0);v1=Math.min(b,t1);draw();}drag=null;});
c.addEventListener("dblclick",()=>{v0=t0;v1=t1;draw();});
c.addEventListener("mousemove",e=>{const r=Math.floor((e.offsetY-top)/trackH);if(r<0||r>=n){hideTip();return;}const t=v0+(e.offsetX-left)*(v1-v0)/w;
 for(const ev of D.events[r])if(ev[0]<=t&&t<=ev[0]+ev[1]){showTip(e,"rank "+r+": "+D.calls[ev[2]]+" ("+D.kinds[ev[2]]+") "+fmtT(ev[1])+", "+fmtB(ev[3])+(ev[4]>=0?", peer "+ev[4]:""));return;}hideTip();});
c.addEventListener("mouseleave",hideTip);
const lg=document.createElement("div");lg.className="legend";for(const k in kindColor){const s=document.createElement("span");s.innerHTML="<i style='background:"+kindColor[k]+"'></i>"+k;lg.appendChild(s);}c.after(lg);
})();
document.body.dataset.status="ok";
}catch(err){document.body.dataset.status="error: "+err;throw err;}
})();
</script>
</body></html>
`
